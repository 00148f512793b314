/** `dsh exec "PROMPT"`: one turn, the answer on stdout, everything else on stderr. */
import type { TurnOutcome } from "../agent/types.ts";
import { type CliIo, printError } from "./io.ts";
import { describeOutcome } from "./outcome.ts";
import { createLiveRenderer } from "./render.ts";
import type { OpenSession } from "./types.ts";

export interface ExecRequest {
  /** The prompt words joined; `-` means read standard input. */
  readonly prompt: string;
  readonly open: OpenSession;
  readonly readStdin: () => Promise<string>;
}

/** Runs the command and returns the exit code: 0 for a finished answer, 1 otherwise, 130 on Ctrl-C. */
export async function runExec(io: CliIo, request: ExecRequest): Promise<number> {
  const prompt = request.prompt === "-" ? await request.readStdin() : request.prompt;
  if (prompt.trim() === "") {
    printError(io, "the prompt is empty");
    return 2;
  }
  // No answerers: nobody can approve anything in a one-shot run, so every approval is denied.
  await using session = await request.open({ answerers: [], questioners: [] });
  const { handle } = session;
  const renderer = createLiveRenderer({
    answer: io.stdout,
    activity: io.stderr,
    color: io.stderrIsTTY,
  });
  const events = handle.events();
  const rendering = (async () => {
    for await (const event of events) {
      renderer.render(event);
      if (event.type === "turn_end") return;
    }
  })();

  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    handle.cancel();
  };
  process.on("SIGINT", onSigint);
  let outcome: TurnOutcome;
  try {
    outcome = await handle.prompt([{ type: "text", text: prompt }]);
    await rendering;
  } finally {
    process.off("SIGINT", onSigint);
  }
  io.stderr.write(`session ${handle.sessionId}\n`);
  if (outcome.reason === "end_turn") return 0;
  printError(io, describeOutcome(outcome));
  return outcome.reason === "cancelled" ? 130 : 1;
}
