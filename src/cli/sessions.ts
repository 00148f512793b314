/** `dsh sessions`: the saved sessions, most recent first; `dsh sessions rm ID` deletes one. */
import { loadConfig } from "../app/config.ts";
import { silentLogger } from "../log.ts";
import { createSessionStore } from "../session/store.ts";
import type { ParsedArgs } from "./args.ts";
import type { CliIo } from "./io.ts";

/**
 * Lists the sessions, or deletes the one `args.remove` names. A session open for writing (by a
 * running dsh) is not deleted: the store's ConflictError names the process holding it.
 */
export async function runSessions(io: CliIo, args: ParsedArgs): Promise<number> {
  const config = loadConfig(io.env);
  const store = createSessionStore({ home: config.home, logger: silentLogger });
  if (args.remove !== undefined) {
    await store.delete(args.remove);
    io.stdout.write(`deleted session ${args.remove}\n`);
    return 0;
  }
  const sessions = await store.list();
  if (sessions.length === 0) {
    io.stdout.write("no saved sessions\n");
    return 0;
  }
  for (const session of sessions) {
    io.stdout.write(`${session.id}  ${session.updatedAt}  ${session.cwd}  ${session.title}\n`);
  }
  return 0;
}
