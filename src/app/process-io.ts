/** The real process streams and environment, as the terminal surfaces see them. */

/** Somewhere text goes. */
export interface ProcessSink {
  write(text: string): void;
}

/** The process's streams, whether each is a terminal, its environment and directory. */
export interface ProcessIo {
  readonly stdout: ProcessSink;
  readonly stderr: ProcessSink;
  readonly stdinIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

export function processIo(): ProcessIo {
  return {
    stdout: { write: (text) => void process.stdout.write(text) }, // stdout-ok: terminal surfaces only
    stderr: { write: (text) => void process.stderr.write(text) },
    // Read on demand: touching process.stdin sets up its stream, which `dsh acp` does not need.
    get stdinIsTTY() {
      return process.stdin.isTTY === true;
    },
    get stdoutIsTTY() {
      return process.stdout.isTTY === true;
    },
    get stderrIsTTY() {
      return process.stderr.isTTY === true;
    },
    env: process.env,
    cwd: process.cwd(),
  };
}
