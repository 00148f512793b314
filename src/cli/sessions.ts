/** `dsh sessions`: the saved sessions, most recent first. */
import type { SessionSummary } from "../session/types.ts";
import type { CliIo } from "./io.ts";

/** Prints the listing; the caller has read it from the store. */
export function printSessions(io: CliIo, sessions: readonly SessionSummary[]): number {
  if (sessions.length === 0) {
    io.stdout.write("no saved sessions\n");
    return 0;
  }
  for (const session of sessions) {
    io.stdout.write(`${session.id}  ${session.updatedAt}  ${session.cwd}  ${session.title}\n`);
  }
  return 0;
}
