/** `dsh sessions`: the saved sessions, read through the composed store; `rm ID` deletes one. */
import { removeCheckpoints } from "../checkpoints/session-checkpoints.ts";
import { printSessions } from "../cli/sessions.ts";
import { silentLogger } from "../log.ts";
import type { ParsedArgs } from "./args.ts";
import { compose } from "./compose.ts";
import { loadConfig } from "./config.ts";
import type { ProcessIo } from "./process-io.ts";

/**
 * Prints the listing, or deletes the session `args.remove` names (one open for writing by a
 * running dsh is not deleted: the store's ConflictError names the process holding it);
 * resolves with the exit code.
 */
export async function runSessionsCommand(io: ProcessIo, args: ParsedArgs): Promise<number> {
  const config = loadConfig(io.env);
  await using composition = compose({ config, env: io.env, logger: silentLogger, answerers: [] });
  if (args.remove !== undefined) {
    await composition.store.delete(args.remove);
    removeCheckpoints(config.home, args.remove);
    io.stdout.write(`deleted session ${args.remove}\n`);
    return 0;
  }
  return printSessions(io, {
    sessions: await composition.store.list(),
    cwd: args.flags.all ? undefined : io.cwd,
    now: new Date(),
  });
}
