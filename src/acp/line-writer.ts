/**
 * The output side of the framing: lines written in order, many to one write. A burst of
 * messages (a replayed transcript) would otherwise cost one pipe write and its promise round
 * trips each; here the lines queued in one go, or while a write is out, go out together as one
 * encoded chunk. A line on its own goes out at once. Order is the order of the calls.
 */

/** Past this many characters waiting, a `write` resolves only once they went out. */
export const HIGH_WATER_CHARS = 256 * 1024;

export interface LineWriter {
  /**
   * Queues `line` (without its LF). Resolves at once while little waits, else once the queue
   * went out, so a client that reads slowly holds dsh's memory to about the high-water mark.
   * Rejects once a write failed: the client is gone and nothing after that line reaches it.
   */
  write(line: string): Promise<void>;
  /** Queues `lines` as one burst: the same as writing each, in one write where they fit. */
  writeAll(lines: readonly string[]): Promise<void>;
  /** Resolves once every line queued so far was written (or a write failed); never rejects. */
  drained(): Promise<void>;
}

/**
 * Writes through `writer`, which this takes no ownership of (closing it is the caller's).
 * `onFailure` hears of the first failed write at once, even when no `write` is left to reject.
 */
export function createLineWriter(
  writer: WritableStreamDefaultWriter<Uint8Array>,
  onFailure: (error: unknown) => void,
): LineWriter {
  const encoder = new TextEncoder();
  let queued: string[] = [];
  let queuedChars = 0;
  /** The write going out now, with the lines queued behind it; undefined when idle. */
  let flushing: Promise<void> | undefined;
  let failure: unknown;
  let failed = false;
  const fail = (error: unknown) => {
    if (failed) return;
    failed = true;
    failure = error;
    onFailure(error);
  };
  // A write the stream took into its buffer can still fail on its way out (EPIPE): the stream
  // errors then, with no `write` left to reject.
  writer.closed.catch(fail);

  const writeQueued = async (): Promise<void> => {
    // After the code that queued the first line: what it queues with it goes in the same write.
    await Promise.resolve();
    while (queued.length > 0 && !failed) {
      const lines = queued;
      queued = [];
      queuedChars = 0;
      lines.push("");
      try {
        await writer.write(encoder.encode(lines.join("\n")));
      } catch (error) {
        fail(error);
      }
    }
    queued = [];
    queuedChars = 0;
    // Cleared with no await since the last look at the queue: a line queued from here on
    // starts a new flush.
    flushing = undefined;
  };

  const flush = (): Promise<void> => {
    flushing ??= writeQueued();
    return flushing;
  };

  const queue = (lines: readonly string[]): Promise<void> => {
    if (failed) return Promise.reject(failure);
    for (const line of lines) {
      queued.push(line);
      queuedChars += line.length + 1;
    }
    const out = flush();
    if (queuedChars < HIGH_WATER_CHARS) return Promise.resolve();
    return out.then(() => (failed ? Promise.reject(failure) : undefined));
  };

  return {
    write: (line) => queue([line]),
    writeAll: queue,
    drained: () => flushing ?? Promise.resolve(),
  };
}
