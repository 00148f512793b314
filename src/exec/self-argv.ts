/** How dsh runs itself for a helper process (`__watchdog`, `__net-bridge`). */
import { join } from "node:path";

/**
 * dsh's own command line: the executable, or, from source, Bun with the entry script (reading
 * no `.env` or `bunfig.toml` of the project it runs in, like the entry's shebang).
 */
export function dshArgv(): string[] {
  if (import.meta.dir.startsWith("/$bunfs/") || /^[A-Z]:\\~BUN\\/i.test(import.meta.dir)) {
    return [process.execPath];
  }
  const entry = join(import.meta.dir, "..", "..", "index.ts");
  return [process.execPath, "--no-env-file", "--config=/dev/null", entry];
}
