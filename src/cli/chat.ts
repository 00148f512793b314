/**
 * `dsh` / `dsh chat`: a conversation at the terminal. At a terminal the input is the raw-mode
 * line editor, drawn under the output while a turn runs too (Enter then queues a message);
 * piped input is read line by line. Esc or Ctrl-C during a turn, at an approval or at a
 * question cancels the turn; Ctrl-D exits. Approvals take one key, the model's questions
 * numbered choices; `@path` attaches a file.
 */
import type { Interface } from "node:readline";
import type { AgentHandle, SessionSettings, UserContent } from "../agent/types.ts";
import { errorMessage } from "../errors.ts";
import { terminalText } from "../exec/sanitize.ts";
import { presetOf } from "../permission/knobs.ts";
import { adviceFor } from "./advice.ts";
import { attachMentions } from "./attachments.ts";
import { type ChatCommandContext, chatCommandNames, runChatCommand } from "./chat-commands.ts";
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
import type { CliIo, OpenSession } from "./types.ts";
import { createTerminalView } from "./view.ts";
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

  /** The running turn's controller: Esc or Ctrl-C aborts it. */
  let turn: AbortController | undefined;
  const cancelTurn = () => turn?.abort();
  const runTurn = async <T>(start: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const controller = new AbortController();
    turn = controller;
    try {
      return await start(controller.signal);
    } finally {
      turn = undefined;
    }
  };
  let editor: TerminalInput | undefined;
  let rl: Interface | undefined;
  /** Piped input: a line read at the chat prompt, else undefined. */
  let atPrompt = false;
  if (editing) {
    editor = createTerminalInput({
      input: options.stdin,
      write: (text) => io.stdout.write(text),
      screen,
      rows: () => io.rows(),
      history: openHistory(session.historyFile),
      style,
      onInterrupt: cancelTurn,
      complete: createCompleter({
        commands: () => chatCommandNames(session.handle),
        cwd: () => session.handle.cwd,
        home: io.env.HOME,
      }),
    });
    lines = editor;
  } else {
    // Loaded here: a bundle links every static builtin import at start-up, `dsh acp` included.
    const { createInterface } = await import("node:readline");
    rl = createInterface({ input: options.stdin, terminal: false });
    lines = createLineQueue(rl, { terminal: false, write: (text) => out.write(text) });
  }
  // Piped input (or a signal sent from outside): Ctrl-C arrives as SIGINT.
  const onSigint = () => {
    if (turn !== undefined) {
      lines?.interrupt();
      cancelTurn();
    } else if (atPrompt || editor !== undefined) {
      editor?.close();
      rl?.close();
    }
  };
  process.on("SIGINT", onSigint);

  /** Each turn's end as the renderer draws it: the lines after a turn wait for its last block. */
  const rendered = new Map<string, PromiseWithResolvers<void>>();
  const turnDrawn = (turnId: string) => {
    const waiter = rendered.get(turnId) ?? Promise.withResolvers<void>();
    rendered.set(turnId, waiter);
    return waiter;
  };
  const follow = (handle: AgentHandle) =>
    void (async () => {
      for await (const event of handle.events()) {
        view.renderer.render(event);
        if (event.type === "turn_end") turnDrawn(event.turnId).resolve();
      }
    })();
  follow(session.handle);

  const settingsLine = (s: SessionSettings) => `model ${s.model} · permission ${presetOf(s.knobs)}`;
  const banner = terminalText(`${session.handle.cwd} · ${settingsLine(session.handle.settings())}`);
  out.write(`${style.bold("dsh")} · ${banner}\n`);
  for (const warning of await startupWarnings(session, io.env))
    out.write(`${style.yellow("!")} ${terminalText(warning)}\n`);
  const recent = recentExchanges(withoutRewound(session.handle.history()), style);
  if (recent !== "") out.write(`\n${recent}`);
  out.write(style.dim("/help for commands, Ctrl-D to exit\n"));
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
    session: {
      get handle() {
        return session.handle;
      },
      models: session.models,
      sandbox: session.sandbox,
      runTurn,
      rules: session.rules,
      fork: async (history) => {
        await session.startFork(history);
        follow(session.handle);
        return { sessionId: session.handle.sessionId, switched: true };
      },
    },
    out,
    error,
    confirm: async (prompt) => (await lines?.choose(prompt, ["y", "n"]))?.startsWith("y") === true,
    columns: () => io.columns(),
  };

  /** Sends one message as a turn and says how it ended. */
  const send = async (content: UserContent[]) => {
    // A skill or command file added meanwhile is found for the next completion and /help.
    void session.handle.library.refresh();
    const outcome = await runTurn((signal) => session.handle.prompt(content, signal));
    await turnDrawn(outcome.turnId).promise;
    rendered.delete(outcome.turnId);
    out.write(style.dim(`${formatStatusLine(session.handle.status())}\n`));
    if (outcome.reason === "error" && outcome.error !== undefined) {
      const model = session.handle.settings().model;
      const context = { model, baseUrl: session.baseUrl(model), keyOrigin: session.keyOrigin };
      error(adviceFor(outcome.error, context));
    } else if (outcome.reason !== "end_turn") error(describeOutcome(outcome));
    if (outcome.reason === "cancelled") {
      const back = editor?.unqueue() ?? 0;
      if (back > 0)
        out.write(
          `${back === 1 ? "the queued message was" : `${back} queued messages were`} not sent: back in the prompt, Enter sends\n`,
        );
    }
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
        const command = await runChatCommand(commandContext, text);
        if (command.type === "exit") break;
        if (command.type === "handled") continue;
        if (command.type === "unknown") {
          questioned = text;
          out.write(
            `unknown command ${terminalText(command.word)}: did you mean /${command.suggestion}? (Enter sends the line to the model as it is)\n`,
          );
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
        const attached = await attachMentions(line, {
          cwd: session.handle.cwd,
          home: io.env.HOME,
          read: session.readMention,
          model: () => session.models().find((m) => m.id === session.handle.settings().model),
          models: session.models,
          signal: AbortSignal.timeout(30_000),
        });
        if (attached.type === "blocked") {
          error(`${attached.reason}; nothing was sent`);
          editor?.edit(line);
          continue;
        }
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
