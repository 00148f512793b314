/** `dsh sessions`: the saved sessions, most recent first. */
import { loadConfig } from "../app/config.ts";
import { silentLogger } from "../log.ts";
import { createSessionStore } from "../session/store.ts";
import type { CliIo } from "./io.ts";

export async function runSessions(io: CliIo): Promise<number> {
  const config = loadConfig(io.env);
  const store = createSessionStore({ home: config.home, logger: silentLogger });
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
