/** Incremental reading of a child's output stream, for tests that converse with a process. */

export interface OutputWatcher {
  /** Everything read so far. */
  text(): string;
  /** Resolves once the output contains `needle` (counting from the start). */
  waitFor(needle: string): Promise<void>;
  /** Resolves when the stream ends. */
  readonly ended: Promise<void>;
}

export function watchOutput(stream: ReadableStream<Uint8Array>): OutputWatcher {
  let buffer = "";
  const waiters: { needle: string; resolve: () => void }[] = [];
  const decoder = new TextDecoder();
  const ended = (async () => {
    for await (const chunk of stream) {
      buffer += decoder.decode(chunk, { stream: true });
      for (const waiter of [...waiters]) {
        if (buffer.includes(waiter.needle)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    }
  })();
  return {
    text: () => buffer,
    waitFor(needle) {
      if (buffer.includes(needle)) return Promise.resolve();
      const { promise, resolve, reject } = Promise.withResolvers<void>();
      waiters.push({ needle, resolve });
      void ended.then(() => {
        if (!buffer.includes(needle))
          reject(new Error(`output ended without ${JSON.stringify(needle)}:\n${buffer}`));
      });
      return promise;
    },
    ended,
  };
}
