/**
 * `dsh` / `dsh chat`: a readline conversation. Ctrl-C cancels the running turn (or exits when
 * idle), Ctrl-D exits, approvals are y/n questions, the model's questions are numbered choices,
 * slash commands (`/help` lists them) run through the shared commands module.
 */
import { createInterface } from "node:readline";
import type { SessionSettings } from "../agent/types.ts";
import { errorMessage } from "../errors.ts";
import { presetOf } from "../permission/knobs.ts";
import type { ParsedArgs } from "./args.ts";
import { runChatCommand } from "./chat-commands.ts";
import { type CliIo, printError } from "./io.ts";
import { type LineQueue, createLineQueue } from "./line-queue.ts";
import { describeOutcome } from "./outcome.ts";
import { firstRun } from "./first-run.ts";
import { createQuestionPrompt } from "./question-prompt.ts";
import { createLiveRenderer } from "./render.ts";
import { openTerminalSession } from "./session.ts";
import { createTerminalAnswerer } from "./terminal-answerer.ts";

export async function runChat(io: CliIo, args: ParsedArgs): Promise<number> {
  if ((await firstRun(io)) === "quit") return 1;
  let lines: LineQueue | undefined;
  const answerer = createTerminalAnswerer({ lines: () => lines, out: io.stdout });
  const questioner = createQuestionPrompt({ lines: () => lines, out: io.stdout });
  await using session = await openTerminalSession(io, args.flags, [answerer], [questioner]);
  const { handle } = session;

  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: io.stdinIsTTY,
  });
  lines = createLineQueue(rl, { terminal: io.stdinIsTTY, write: (text) => io.stdout.write(text) });
  // One stream for everything: activity and questions then appear in the order they happen.
  const renderer = createLiveRenderer({
    answer: io.stdout,
    activity: io.stdout,
    color: io.stdinIsTTY,
  });
  void (async () => {
    for await (const event of handle.events()) renderer.render(event);
  })();

  let turnRunning = false;
  /** The chat itself waits for the next prompt (not a question inside a turn). */
  let atPrompt = false;
  const onInterrupt = () => {
    if (atPrompt) {
      rl.close();
      return;
    }
    if (lines?.interrupt()) return;
    if (turnRunning) handle.cancel();
  };
  rl.on("SIGINT", onInterrupt);
  process.on("SIGINT", onInterrupt);

  const settingsLine = (s: SessionSettings) => `model ${s.model} · permission ${presetOf(s.knobs)}`;
  io.stdout.write(
    `dsh · ${handle.cwd} · ${settingsLine(handle.settings())}\n/help for commands, Ctrl-D to exit\n`,
  );
  try {
    for (;;) {
      if (io.stdinIsTTY) {
        io.stdout.write("\n");
        lines.prompt("› ");
      }
      atPrompt = true;
      const line = await lines.next().finally(() => {
        atPrompt = false;
      });
      if (line === undefined) break;
      const text = line.trim();
      if (text === "") continue;
      if (text.startsWith("/")) {
        const commandSession = {
          handle,
          models: session.composition.models,
          sandbox: () => session.composition.runner.sandbox(),
        };
        const command = await runChatCommand(io, commandSession, text, (running) => {
          turnRunning = running;
        });
        if (command === "exit") break;
        if (command === "handled") continue;
      }
      turnRunning = true;
      try {
        const outcome = await handle.prompt([{ type: "text", text }]);
        if (outcome.reason !== "end_turn") printError(io, describeOutcome(outcome));
      } catch (error) {
        printError(io, errorMessage(error));
      } finally {
        turnRunning = false;
      }
    }
  } finally {
    process.off("SIGINT", onInterrupt);
    rl.close();
  }
  io.stderr.write(`${io.stdinIsTTY ? "\n" : ""}session ${handle.sessionId}\n`);
  return 0;
}
