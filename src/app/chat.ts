/** `dsh` / `dsh chat`: the chat surface over the terminal session composition. */
import { runChat } from "../cli/chat.ts";
import type { ParsedArgs } from "./args.ts";
import { firstRun } from "./first-run.ts";
import type { ProcessIo } from "./process-io.ts";
import { openTerminalSession } from "./terminal-session.ts";

/** Runs the chat until the user leaves; resolves with the exit code. */
export async function runChatCommand(io: ProcessIo, args: ParsedArgs): Promise<number> {
  if ((await firstRun(io)) === "quit") return 1;
  return await runChat(io, {
    open: (seams) => openTerminalSession(io, args.flags, seams),
    ...(args.prompt === undefined ? {} : { firstPrompt: args.prompt }),
    stdin: process.stdin,
  });
}
