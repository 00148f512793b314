/** `dsh sessions`: the saved sessions, read through the composed store. */
import { printSessions } from "../cli/sessions.ts";
import { silentLogger } from "../log.ts";
import type { ParsedArgs } from "./args.ts";
import { compose } from "./compose.ts";
import { loadConfig } from "./config.ts";
import type { ProcessIo } from "./process-io.ts";

/** Prints the listing; resolves with the exit code. */
export async function runSessionsCommand(io: ProcessIo, args: ParsedArgs): Promise<number> {
  const config = loadConfig(io.env);
  await using composition = compose({ config, env: io.env, logger: silentLogger, answerers: [] });
  return printSessions(io, {
    sessions: await composition.store.list(),
    cwd: args.flags.all ? undefined : io.cwd,
    now: new Date(),
  });
}
