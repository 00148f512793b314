/** The real process streams and environment, as the CLI commands see them. */
import type { CliIo } from "../cli/io.ts";

export function processIo(): CliIo {
  return {
    stdout: { write: (text) => void process.stdout.write(text) }, // stdout-ok: terminal surfaces only
    stderr: { write: (text) => void process.stderr.write(text) },
    // Read on demand: touching process.stdin sets up its stream, which `dsh acp` does not need.
    get stdinIsTTY() {
      return process.stdin.isTTY === true;
    },
    get stderrIsTTY() {
      return process.stderr.isTTY === true;
    },
    env: process.env,
    cwd: process.cwd(),
  };
}
