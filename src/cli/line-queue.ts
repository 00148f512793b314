/** Lines typed by the user, consumed one at a time by whoever asks next (chat or an approval). */
import type { Interface } from "node:readline";

export interface LineQueue {
  /** The next line, or undefined once input has ended. */
  next(): Promise<string | undefined>;
  /**
   * Called as a question appears: on a terminal, lines typed before it are dropped, so a stray
   * "y" typed during a turn never approves anything. Piped input keeps them.
   */
  dropTypeahead(): void;
  /** Ends a pending `next()` with an empty line (Ctrl-C while a question is open). */
  interrupt(): boolean;
}

export interface LineQueueOptions {
  /** Drop type-ahead before an answer (a person at a terminal); piped input keeps it. */
  readonly discardTypeahead: boolean;
}

export function createLineQueue(rl: Interface, options: LineQueueOptions): LineQueue {
  const buffered: string[] = [];
  let waiting: PromiseWithResolvers<string | undefined> | undefined;
  let ended = false;

  rl.on("line", (line) => {
    if (waiting) {
      const current = waiting;
      waiting = undefined;
      current.resolve(line);
    } else {
      buffered.push(line);
    }
  });
  rl.on("close", () => {
    ended = true;
    waiting?.resolve(undefined);
    waiting = undefined;
  });

  const next = (): Promise<string | undefined> => {
    const line = buffered.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (ended) return Promise.resolve(undefined);
    waiting = Promise.withResolvers();
    return waiting.promise;
  };

  return {
    next,
    dropTypeahead() {
      if (options.discardTypeahead) buffered.length = 0;
    },
    interrupt() {
      if (!waiting) return false;
      const current = waiting;
      waiting = undefined;
      current.resolve("");
      return true;
    },
  };
}
