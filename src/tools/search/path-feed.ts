/**
 * Paths handed from the walk to the searchers as the walk finds them, so reading and matching
 * start while the tree is still being listed.
 */

export interface PathSource {
  /** Up to `n` paths in walk order; fewer only at the end; none once the walk is done. */
  take(n: number): Promise<string[]>;
}

export interface PathFeed extends PathSource {
  push(path: string): void;
  /** No more paths will come. */
  end(): void;
}

/** A source over a fixed list. */
export function pathsOf(paths: readonly string[]): PathSource {
  let at = 0;
  return {
    take: async (n) => {
      const batch = paths.slice(at, at + n);
      at += batch.length;
      return batch;
    },
  };
}

/** A feed the walk fills while searchers take from it, in the order they asked. */
export function createPathFeed(): PathFeed {
  const queue: string[] = [];
  // Paths before `head` were taken; the queue is compacted only once most of it was.
  let head = 0;
  let ended = false;
  const waiters: { n: number; resolve: (batch: string[]) => void }[] = [];
  const serve = () => {
    for (let first = waiters[0]; first !== undefined; first = waiters[0]) {
      if (!ended && queue.length - head < first.n) return;
      waiters.shift();
      const end = Math.min(head + first.n, queue.length);
      first.resolve(queue.slice(head, end));
      head = end;
      if (head > 4096 && head * 2 > queue.length) {
        queue.splice(0, head);
        head = 0;
      }
    }
  };
  return {
    push(path) {
      queue.push(path);
      if (waiters.length > 0) serve();
    },
    end() {
      ended = true;
      serve();
    },
    take(n) {
      const { promise, resolve } = Promise.withResolvers<string[]>();
      waiters.push({ n, resolve });
      serve();
      return promise;
    },
  };
}
