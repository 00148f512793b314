/**
 * `dsh` / `dsh chat`: a conversation at the terminal. At a terminal the input is the raw-mode
 * line editor, drawn under the output while a turn runs too (Enter then queues a message);
 * piped input is read line by line. Esc or Ctrl-C during a turn, at an approval or at a
 * question cancels the turn; Ctrl-D exits. Approvals take one key, the model's questions
 * numbered choices; `@path` attaches a file.
 */
import type { Interface } from "node:readline";
import type { AgentHandle, SessionSettings, TurnOutcome, UserContent } from "../agent/types.ts";
import { errorMessage } from "../errors.ts";
import { terminalText } from "../render/terminal-text.ts";
import { presetOf } from "../permission/knobs.ts";
import { adviceFor } from "./advice.ts";
import { attachMentions } from "./attachments.ts";
import { type ChatCommandContext, chatCommandNames, runChatSlashCommand } from "./chat-commands.ts";
import { createCompleter } from "./completion.ts";
import { openHistory } from "./history.ts";
import { printError } from "./io.ts";
import { type TerminalInput, createTerminalInput } from "./line-editor.ts";
import { type LineQueue, createLineQueue } from "./line-queue.ts";
import { describeOutcome } from "./outcome.ts";
import { createQuestionPrompt } from "./question-prompt.ts";
import { recentExchanges } from "./recent.ts";
import { startupWarnings } from "./startup-warnings.ts";
import { formatStatusLine } from "./status-line.ts";
import { isDumbTerminal } from "./style.ts";
import { createTerminalAnswerer } from "./terminal-answerer.ts";
import type { CliIo, OpenSession, TerminalSession } from "./types.ts";
import { type TerminalView, createTerminalView } from "./view.ts";
import { withoutRewound } from "../session/rewind.ts";

export interface ChatOptions {
  readonly open: OpenSession;
  /** `dsh chat "PROMPT"`: sent as the first message. */
  readonly firstPrompt?: string;
  /** The terminal's input stream (raw mode is used when it is a terminal). */
  readonly stdin: NodeJS.ReadStream;
}

export async function runChat(io: CliIo, options: ChatOptions): Promise<number> {
  /** Tool calls whose diff an approval prompt showed: their results do not show it again. */
  const diffsShown = new Set<string>();
  const view = createTerminalView(io, {
    activity: "stdout",
    showReasoning: true,
    diffShown: (callId) => diffsShown.delete(callId),
  });
  const { screen, style } = view;
  const out = screen.activity;
  const editing = io.stdinIsTTY && io.stdoutIsTTY && !isDumbTerminal(io.env);
  // At the line editor everything goes through the screen, which keeps the prompt under it.
  const error = (message: string) => printError(editing ? { stderr: out } : io, message);
  let lines: LineQueue | undefined;
  const answerer = createTerminalAnswerer({
    lines: () => lines,
    out,
    diffShown: (callId) => diffsShown.add(callId),
  });
  const questioner = createQuestionPrompt({ lines: () => lines, out });
  await using session = await options.open({ answerers: [answerer], questioners: [questioner] });

  const turns = createTurnRunner();
  const input = await openInput(io, options.stdin, session, view, editing, turns.cancel);
  const { editor, rl } = input;
  lines = input.lines;
  /** Piped input: a line read at the chat prompt, else undefined. */
  let atPrompt = false;
  // Piped input (or a signal sent from outside): Ctrl-C arrives as SIGINT.
  const onSigint = () => {
    if (turns.running) {
      lines?.interrupt();
      turns.cancel();
    } else if (atPrompt || editor !== undefined) {
      editor?.close();
      rl?.close();
    }
  };
  process.on("SIGINT", onSigint);

  const { follow, drawn } = createFollower(view);
  follow(session.handle);

  await printBanner(io, session, view);
  // From here on the prompt is on screen, also while `dsh chat "PROMPT"` runs its first turn.
  editor?.show();

  const nextLine = async (): Promise<string | undefined> => {
    if (editor !== undefined) {
      out.write("\n");
      return editor.chatLine("› ");
    }
    atPrompt = true;
    try {
      return await lines?.next();
    } finally {
      atPrompt = false;
    }
  };
  const commandContext: ChatCommandContext = {
    session: commandSession(session, turns.run, follow),
    out,
    error,
    confirm: async (prompt) => (await lines?.choose(prompt, ["y", "n"]))?.startsWith("y") === true,
    columns: () => io.columns(),
  };

  /** Sends one message as a turn and says how it ended. */
  const send = async (content: UserContent[]) => {
    // A skill or command file added meanwhile is found for the next completion and /help.
    void session.handle.library.refresh();
    const outcome = await turns.run((signal) => session.handle.prompt(content, signal));
    await drawn(outcome.turnId);
    out.write(style.dim(`${formatStatusLine(session.handle.status())}\n`));
    const failure = failureOf(outcome, session);
    if (failure !== undefined) error(failure);
    const back = outcome.reason === "cancelled" ? (editor?.unqueue() ?? 0) : 0;
    if (back > 0) out.write(unsentNote(back));
  };

  /** A `/word` that got "did you mean": sent to the model if it is entered again as it was. */
  let questioned: string | undefined;
  let first = options.firstPrompt;
  try {
    for (;;) {
      let line: string | undefined;
      const queued = first ?? editor?.takeQueued();
      if (queued !== undefined) {
        first = undefined;
        line = queued;
        out.write(`› ${terminalText(queued).replace(/\n/g, "\n· ")}\n`);
      } else line = await nextLine();
      if (line === undefined) break;
      const text = line.trim();
      if (text === "") continue;
      if (text.startsWith("/") && text !== questioned) {
        questioned = undefined;
        const command = await runChatSlashCommand(commandContext, text);
        if (command.type === "exit") break;
        if (command.type === "handled") continue;
        if (command.type === "unknown") {
          questioned = text;
          out.write(didYouMean(command.word, command.suggestion));
          editor?.edit(line);
          continue;
        }
        if (command.type === "new") {
          const old = session.handle.sessionId;
          await session.startNew();
          follow(session.handle);
          if (command.clear) screen.clear();
          out.write(
            `new session ${session.handle.sessionId}; the last one is saved: dsh --resume ${old}\n`,
          );
          continue;
        }
      }
      questioned = undefined;
      try {
        const attached = await attachTo(line, session, io.env.HOME);
        for (const note of attached.notes) out.write(style.dim(`  ${terminalText(note)}\n`));
        await send(attached.content);
      } catch (caught) {
        error(errorMessage(caught));
      }
    }
  } finally {
    process.off("SIGINT", onSigint);
    editor?.close();
    rl?.close();
    screen.close();
  }
  io.stderr.write(
    `session ${session.handle.sessionId} (resume: dsh --resume ${session.handle.sessionId})\n`,
  );
  return 0;
}

/** Runs one turn at a time under its own controller: Esc or Ctrl-C aborts it. */
function createTurnRunner() {
  let turn: AbortController | undefined;
  return {
    get running() {
      return turn !== undefined;
    },
    cancel: () => turn?.abort(),
    run: async <T>(start: (signal: AbortSignal) => Promise<T>): Promise<T> => {
      const controller = new AbortController();
      turn = controller;
      try {
        return await start(controller.signal);
      } finally {
        turn = undefined;
      }
    },
  };
}

/** What the slash commands reach of the session (its handle is the current one). */
function commandSession(
  session: TerminalSession,
  runTurn: ChatCommandContext["session"]["runTurn"],
  follow: (handle: TerminalSession["handle"]) => void,
): ChatCommandContext["session"] {
  return {
    get handle() {
      return session.handle;
    },
    models: session.models,
    sandbox: session.sandbox,
    runTurn,
    rules: session.rules,
    // The chat goes on in the fork, as after /new.
    fork: async (history) => {
      await session.startFork(history);
      follow(session.handle);
      return { sessionId: session.handle.sessionId, switched: true };
    },
  };
}

/** Said of a `/word` that is no command but close to one. */
function didYouMean(word: string, suggestion: string): string {
  return `unknown command ${terminalText(word)}: did you mean /${suggestion}? (Enter sends the line to the model as it is)\n`;
}

/** Said when a cancelled turn put `back` queued messages back into the prompt. */
function unsentNote(back: number): string {
  const which = back === 1 ? "the queued message was" : `${back} queued messages were`;
  return `${which} not sent: back in the prompt, Enter sends\n`;
}

interface ChatInput {
  /** The line editor, at a terminal. */
  readonly editor?: TerminalInput;
  /** Piped input's reader. */
  readonly rl?: Interface;
  readonly lines: LineQueue;
}

/** The chat's input: the line editor at a terminal, else piped lines. */
async function openInput(
  io: CliIo,
  stdin: NodeJS.ReadStream,
  session: TerminalSession,
  view: TerminalView,
  editing: boolean,
  onInterrupt: () => void,
): Promise<ChatInput> {
  if (editing) {
    const editor = createTerminalInput({
      input: stdin,
      write: (text) => io.stdout.write(text),
      screen: view.screen,
      rows: () => io.rows(),
      history: openHistory(session.historyFile),
      style: view.style,
      onInterrupt,
      complete: createCompleter({
        commands: () => chatCommandNames(session.handle),
        cwd: () => session.handle.cwd,
        home: io.env.HOME,
      }),
    });
    return { editor, lines: editor };
  }
  // Loaded here: a bundle links every static builtin import at start-up, `dsh acp` included.
  const { createInterface } = await import("node:readline");
  const rl = createInterface({ input: stdin, terminal: false });
  const out = view.screen.activity;
  return { rl, lines: createLineQueue(rl, { terminal: false, write: (text) => out.write(text) }) };
}

/**
 * Renders each handle's live events; `drawn(turnId)` resolves once the renderer drew that
 * turn's end, so what is printed after a turn comes after its last block.
 */
function createFollower(view: TerminalView) {
  const rendered = new Map<string, PromiseWithResolvers<void>>();
  const turnDrawn = (turnId: string) => {
    const waiter = rendered.get(turnId) ?? Promise.withResolvers<void>();
    rendered.set(turnId, waiter);
    return waiter;
  };
  return {
    follow: (handle: AgentHandle) =>
      void (async () => {
        for await (const event of handle.events()) {
          view.renderer.render(event);
          if (event.type === "turn_end") turnDrawn(event.turnId).resolve();
        }
      })(),
    async drawn(turnId: string) {
      await turnDrawn(turnId).promise;
      rendered.delete(turnId);
    },
  };
}

/** The chat's first lines: where, with which model and permission, warnings, the last exchanges. */
async function printBanner(io: CliIo, session: TerminalSession, view: TerminalView) {
  const { style } = view;
  const out = view.screen.activity;
  const settingsLine = (s: SessionSettings) => `model ${s.model} · permission ${presetOf(s.knobs)}`;
  const banner = terminalText(`${session.handle.cwd} · ${settingsLine(session.handle.settings())}`);
  out.write(`${style.bold("dsh")} · ${banner}\n`);
  for (const warning of await startupWarnings(session, io.env))
    out.write(`${style.yellow("!")} ${terminalText(warning)}\n`);
  const recent = recentExchanges(withoutRewound(session.handle.history()), style);
  if (recent !== "") out.write(`\n${recent}`);
  out.write(style.dim("/help for commands, Ctrl-D to exit\n"));
}

/** What the user is told of a turn that did not end normally; undefined when it did. */
function failureOf(outcome: TurnOutcome, session: TerminalSession): string | undefined {
  if (outcome.reason === "error" && outcome.error !== undefined) {
    const model = session.handle.settings().model;
    const context = { model, baseUrl: session.baseUrl(model), keyOrigin: session.keyOrigin };
    return adviceFor(outcome.error, context);
  }
  return outcome.reason === "end_turn" ? undefined : describeOutcome(outcome);
}

/** A typed line with the files its `@path`s name attached. */
function attachTo(line: string, session: TerminalSession, home: string | undefined) {
  return attachMentions(line, {
    cwd: session.handle.cwd,
    home,
    read: session.readMention,
    signal: AbortSignal.timeout(30_000),
  });
}
