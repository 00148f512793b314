/**
 * `dsh acp`'s transport to its client: stdout as a byte stream written through Bun's FileSink
 * (no Node stream to set up before the first message), and the moment the client stops reading.
 * A write to a pipe nobody reads fails with EPIPE; a client that closed its end while dsh has
 * nothing to say is noticed by polling the descriptor (`reader-gone.ts`).
 */
import { readerGone } from "./reader-gone.ts";

const STDOUT_FD = 1;

export interface AcpStdout {
  /** Bytes to the client; a write rejects once the client stopped reading. */
  readonly output: WritableStream<Uint8Array>;
  /** Resolves when the client closed its end of stdout while dsh was not writing. */
  readonly readerGone: Promise<void>;
}

/**
 * The process's stdout for the ACP connection.
 * @param signal Stops watching for the reader (the connection is over).
 */
export function acpStdout(signal: AbortSignal): AcpStdout {
  const sink = Bun.stdout.writer(); // stdout-ok: the ACP transport
  const output = new WritableStream<Uint8Array>({
    async write(chunk) {
      sink.write(chunk);
      // Each line waits until the OS has taken it: backpressure, and EPIPE surfaces here.
      await sink.flush();
    },
    async close() {
      await sink.end();
    },
  });
  return { output, readerGone: readerGone(STDOUT_FD, signal) };
}
