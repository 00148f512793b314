/** Error lines of the terminal surfaces. Only `src/cli/` writes stdout, through `CliIo`. */
import type { CliIo } from "./types.ts";

export type { CliIo, TextSink } from "./types.ts";

/** One line on stderr, prefixed like every dsh error. */
export function printError(io: Pick<CliIo, "stderr">, message: string): void {
  io.stderr.write(`dsh: ${message}\n`);
}
