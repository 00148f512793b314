/**
 * The real process streams and environment, as the terminal surfaces see them. Writes to
 * stdout and stderr are counted until the OS has taken them, so `flush()` can hold the exit
 * until a slow reader has every byte (Bun's `process.exit()` drops what is still queued).
 */

import type { CliIo, TextSink } from "../cli/types.ts";

/** The terminal surfaces' streams and surroundings, and a way to wait until output is out. */
export interface ProcessIo extends CliIo {
  /** Resolves once everything written so far is out (or its reader is gone). */
  flush(): Promise<void>;
}

export function processIo(): ProcessIo {
  // Each Node stream is set up at its first write: `dsh acp` writes its protocol through its
  // own transport and pays for neither.
  const stdout = lazySink(() => process.stdout); // stdout-ok: terminal surfaces only
  const stderr = lazySink(() => process.stderr);
  return {
    stdout,
    stderr,
    // Read on demand: touching a process stream sets it up.
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
    columns: () => process.stdout.columns || process.stderr.columns || 80,
    rows: () => process.stdout.rows || process.stderr.rows || 24,
    flush: async () => {
      await Promise.all([stdout.flush(), stderr.flush()]);
    },
  };
}

/** A tracked sink over the stream `open` returns, opened at the first write. */
function lazySink(open: () => NodeJS.WriteStream): TrackedSink {
  let sink: TrackedSink | undefined;
  return {
    write(text) {
      sink ??= trackedSink(open());
      sink.write(text);
    },
    flush: () => sink?.flush() ?? Promise.resolve(),
  };
}

interface TrackedSink extends TextSink {
  flush(): Promise<void>;
}

/**
 * A sink over a Node stream that knows how many writes the OS has not taken yet. A reader that
 * went away (EPIPE) ends the stream: later writes are dropped, and flushing never waits on it.
 */
function trackedSink(stream: NodeJS.WriteStream): TrackedSink {
  let pending = 0;
  let broken = false;
  let drained: PromiseWithResolvers<void> | undefined;
  const settle = () => {
    pending -= 1;
    if (pending > 0 || drained === undefined) return;
    drained.resolve();
    drained = undefined;
  };
  stream.on("error", () => {
    broken = true;
  });
  return {
    write(text) {
      if (broken || text === "") return;
      pending += 1;
      stream.write(text, settle);
    },
    flush() {
      if (pending === 0) return Promise.resolve();
      drained ??= Promise.withResolvers();
      return drained.promise;
    },
  };
}
