/** `dsh exec`: the one-shot surface over the terminal session composition. */
import { runExec } from "../cli/exec.ts";
import type { ParsedArgs } from "./args.ts";
import type { ProcessIo } from "./process-io.ts";
import { openTerminalSession } from "./terminal-session.ts";

/** Runs one turn; resolves with the exit code. */
export function runExecCommand(io: ProcessIo, args: ParsedArgs): Promise<number> {
  return runExec(io, {
    prompt: args.prompt ?? "",
    open: (seams) => openTerminalSession(io, args.flags, seams),
    readStdin: () => Bun.stdin.text(),
  });
}
