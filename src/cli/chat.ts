/**
 * `dsh` / `dsh chat`: a conversation at the terminal. At a terminal the input is the raw-mode
 * line editor (multi-line, paste, history, Ctrl-C that clears first); piped input is read line
 * by line. Ctrl-C during a turn, at an approval or at a question cancels the turn; Ctrl-D
 * exits. Approvals are y/n questions, the model's questions numbered choices.
 */
import type { Interface } from "node:readline";
import type { SessionSettings } from "../agent/types.ts";
import { errorMessage } from "../errors.ts";
import { terminalText } from "../exec/sanitize.ts";
import { presetOf } from "../permission/knobs.ts";
import { adviceFor } from "./advice.ts";
import { runChatCommand } from "./chat-commands.ts";
import { openHistory } from "./history.ts";
import { printError } from "./io.ts";
import { type TerminalInput, createTerminalInput } from "./line-editor.ts";
import { type LineQueue, createLineQueue } from "./line-queue.ts";
import { describeOutcome } from "./outcome.ts";
import { createQuestionPrompt } from "./question-prompt.ts";
import { recentExchanges } from "./recent.ts";
import { formatStatusLine } from "./status-line.ts";
import { isDumbTerminal } from "./style.ts";
import { createTerminalAnswerer } from "./terminal-answerer.ts";
import type { CliIo, OpenSession } from "./types.ts";
import { createTerminalView } from "./view.ts";

export interface ChatOptions {
  readonly open: OpenSession;
  /** `dsh chat "PROMPT"`: sent as the first message. */
  readonly firstPrompt?: string;
  /** The terminal's input stream (raw mode is used when it is a terminal). */
  readonly stdin: NodeJS.ReadStream;
}

export async function runChat(io: CliIo, options: ChatOptions): Promise<number> {
  const view = createTerminalView(io, { activity: "stdout", showReasoning: true });
  const { screen, style } = view;
  let lines: LineQueue | undefined;
  const answerer = createTerminalAnswerer({ lines: () => lines, out: screen.activity });
  const questioner = createQuestionPrompt({ lines: () => lines, out: screen.activity });
  await using session = await options.open({ answerers: [answerer], questioners: [questioner] });
  const { handle } = session;

  /** The running turn's controller: Ctrl-C aborts it. */
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
  const editing = io.stdinIsTTY && io.stdoutIsTTY && !isDumbTerminal(io.env);
  let editor: TerminalInput | undefined;
  let rl: Interface | undefined;
  /** Piped input: a line read at the chat prompt, else undefined. */
  let atPrompt = false;
  if (editing) {
    editor = createTerminalInput({
      input: options.stdin,
      output: io.stdout,
      columns: () => io.columns(),
      rows: () => io.rows(),
      history: openHistory(session.historyFile),
      onInterrupt: cancelTurn,
      onReading: (reading) => (reading ? screen.suspend() : screen.resume()),
    });
    lines = editor;
  } else {
    // Loaded here: a bundle links every static builtin import at start-up, `dsh acp` included.
    const { createInterface } = await import("node:readline");
    rl = createInterface({ input: options.stdin, terminal: false });
    lines = createLineQueue(rl, { terminal: false, write: (text) => io.stdout.write(text) });
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
  void (async () => {
    for await (const event of handle.events()) {
      view.renderer.render(event);
      if (event.type === "turn_end") turnDrawn(event.turnId).resolve();
    }
  })();

  const settingsLine = (s: SessionSettings) => `model ${s.model} · permission ${presetOf(s.knobs)}`;
  const banner = terminalText(`${handle.cwd} · ${settingsLine(handle.settings())}`);
  io.stdout.write(`${style.bold("dsh")} · ${banner}\n`);
  const recent = recentExchanges(handle.history(), style);
  if (recent !== "") io.stdout.write(`\n${recent}`);
  io.stdout.write(style.dim("/help for commands, Ctrl-D to exit\n"));

  const nextLine = async (): Promise<string | undefined> => {
    if (editor !== undefined) {
      io.stdout.write("\n");
      return editor.chatLine("› ");
    }
    atPrompt = true;
    try {
      return await lines?.next();
    } finally {
      atPrompt = false;
    }
  };

  let first = options.firstPrompt;
  try {
    for (;;) {
      const line = first ?? (await nextLine());
      if (first !== undefined) {
        io.stdout.write(`› ${first}\n`);
        first = undefined;
      }
      if (line === undefined) break;
      const text = line.trim();
      if (text === "") continue;
      if (text.startsWith("/")) {
        // The shared commands module; an unknown `/word` goes to the model as a prompt.
        const command = await runChatCommand(io, { ...session, runTurn }, text);
        if (command === "exit") break;
        if (command === "handled") continue;
      }
      try {
        const outcome = await runTurn((signal) =>
          handle.prompt([{ type: "text", text: line }], signal),
        );
        await turnDrawn(outcome.turnId).promise;
        rendered.delete(outcome.turnId);
        screen.activity.write(style.dim(`${formatStatusLine(handle.status())}\n`));
        if (outcome.reason === "error" && outcome.error !== undefined) {
          const model = handle.settings().model;
          printError(io, adviceFor(outcome.error, { model, baseUrl: session.baseUrl(model) }));
        } else if (outcome.reason !== "end_turn") printError(io, describeOutcome(outcome));
      } catch (error) {
        printError(io, errorMessage(error));
      }
    }
  } finally {
    process.off("SIGINT", onSigint);
    editor?.close();
    rl?.close();
    screen.close();
  }
  io.stderr.write(`session ${handle.sessionId} (resume: dsh --resume ${handle.sessionId})\n`);
  return 0;
}
