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
  let queue: string[] = [];
  let ended = false;
  const waiters: { n: number; resolve: (batch: string[]) => void }[] = [];
  const serve = () => {
    for (let first = waiters[0]; first !== undefined; first = waiters[0]) {
      if (!ended && queue.length < first.n) return;
      waiters.shift();
      first.resolve(queue.slice(0, first.n));
      queue = queue.slice(first.n);
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
