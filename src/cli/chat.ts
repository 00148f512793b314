/**
 * `dsh` / `dsh chat`: a readline conversation. Ctrl-C cancels the running turn (or exits when
 * idle), Ctrl-D exits, approvals are y/n questions, the model's questions are numbered choices,
 * `/model` and `/permission` change settings.
 */
import { createInterface } from "node:readline";
import type { AgentHandle, SessionSettings } from "../agent/types.ts";
import { errorMessage } from "../errors.ts";
import { presetOf } from "../permission/knobs.ts";
import { createPermissionService } from "../permission/service.ts";
import { type CliIo, printError } from "./io.ts";
import { type LineQueue, createLineQueue } from "./line-queue.ts";
import { describeOutcome } from "./outcome.ts";
import { createQuestionPrompt } from "./question-prompt.ts";
import { createLiveRenderer } from "./render.ts";
import { createTerminalAnswerer } from "./terminal-answerer.ts";
import type { OpenSession } from "./types.ts";

export async function runChat(io: CliIo, open: OpenSession): Promise<number> {
  let lines: LineQueue | undefined;
  const answerer = createTerminalAnswerer({ lines: () => lines, out: io.stdout });
  const questioner = createQuestionPrompt({ lines: () => lines, out: io.stdout });
  await using session = await open({ answerers: [answerer], questioners: [questioner] });
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
        if (runSlashCommand(io, handle, text, () => session.models().map((m) => m.id)) === "exit")
          break;
        continue;
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

function runSlashCommand(
  io: CliIo,
  handle: AgentHandle,
  text: string,
  models: () => string[],
): "exit" | "ok" {
  const [name, value] = text.split(/\s+/, 2);
  try {
    switch (name) {
      case "/exit":
      case "/quit":
        return "exit";
      case "/model":
        if (value) handle.configure({ model: value });
        io.stdout.write(`model: ${handle.settings().model} (available: ${models().join(", ")})\n`);
        return "ok";
      case "/permission": {
        const permission = createPermissionService(handle);
        if (value) permission.set(value);
        io.stdout.write(
          `permission: ${permission.current()} (available: ${permission.choices().join(", ")})\n`,
        );
        return "ok";
      }
      case "/help":
        io.stdout.write(
          "/model [ID]           show or switch the model\n/permission [PRESET]  show or switch the permission preset\n/exit                 leave (or Ctrl-D)\n",
        );
        return "ok";
      default:
        printError(io, `unknown command ${name}; /help lists them`);
        return "ok";
    }
  } catch (error) {
    printError(io, errorMessage(error));
    return "ok";
  }
}
