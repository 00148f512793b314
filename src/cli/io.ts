/** Error lines of the terminal surfaces. Only `src/cli/` writes stdout, through `CliIo`. */
import { terminalText } from "../render/terminal-text.ts";
import type { CliIo } from "./types.ts";

export type { CliIo, TextSink } from "./types.ts";

/** One line on stderr, prefixed like every dsh error; the message is made safe to print. */
export function printError(io: Pick<CliIo, "stderr">, message: string): void {
  io.stderr.write(
    `dsh: ${terminalText(message)
      .replace(/\s*\n\s*/g, " ")
      .trim()}\n`,
  );
}
