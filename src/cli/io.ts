/** The process's terminal streams, as the CLI commands see them. Only `src/cli/` writes stdout. */
import type { TextSink } from "./render.ts";

export interface CliIo {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  readonly stdinIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** One line on stderr, prefixed like every dsh error. */
export function printError(io: CliIo, message: string): void {
  io.stderr.write(`dsh: ${message}\n`);
}
