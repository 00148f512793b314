/** `dsh exec`: the one-shot surface over the terminal session composition. */
import { fstatSync } from "node:fs";
import { runExec } from "../cli/exec.ts";
import type { ParsedArgs } from "./args.ts";
import type { ProcessIo } from "./process-io.ts";
import { openTerminalSession } from "./terminal-session.ts";

/** Runs one turn; resolves with the exit code. */
export function runExecCommand(io: ProcessIo, args: ParsedArgs): Promise<number> {
  return runExec(io, {
    ...(args.prompt === undefined ? {} : { prompt: args.prompt }),
    piped: () => readPipedStdin(args.prompt === "-"),
    open: (seams) => openTerminalSession(io, args.flags, seams),
    json: args.flags.json === true,
    ...(args.flags.outputLastMessage === undefined
      ? {}
      : { outputLastMessage: args.flags.outputLastMessage }),
  });
}

/**
 * Standard input when it is a pipe or a file (never a terminal, `/dev/null` or a socket a
 * parent left open), read to its end; with `always` (the prompt is `-`), whatever it is.
 */
async function readPipedStdin(always: boolean): Promise<string | undefined> {
  if (!always) {
    let stat: ReturnType<typeof fstatSync>;
    try {
      stat = fstatSync(0);
    } catch {
      return undefined;
    }
    if (!stat.isFIFO() && !stat.isFile()) return undefined;
  }
  return await Bun.stdin.text();
}
