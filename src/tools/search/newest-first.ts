/**
 * glob's order: newest first, then by path. Only the first few are shown, so they are picked
 * with a bounded heap rather than by sorting every match: one comparison for most of them
 * instead of a sort's dozen (a sort of 20,000 paths whose times tie costs tens of
 * milliseconds the first time its comparator runs).
 */

interface Stamped {
  readonly file: string;
  readonly mtime: number;
}

/** Whether `a` comes before `b`: newer, or as new and first by path. Paths are unique. */
function before(a: Stamped, b: Stamped): boolean {
  return a.mtime > b.mtime || (a.mtime === b.mtime && a.file < b.file);
}

/**
 * The first `limit` of `files` by modification time (`mtimes`, in the same order), newest
 * first, then by path: what sorting them all and taking the first `limit` would give.
 */
export function newestFirst(
  files: readonly string[],
  mtimes: Float64Array,
  limit: number,
): string[] {
  // A heap whose top is the last of those kept: a later file that comes before it replaces it.
  const heap: Stamped[] = [];
  const down = (from: number) => {
    for (let at = from; ; ) {
      const left = at * 2 + 1;
      const right = left + 1;
      let last = at;
      if (left < heap.length && before(heap[last] as Stamped, heap[left] as Stamped)) last = left;
      if (right < heap.length && before(heap[last] as Stamped, heap[right] as Stamped))
        last = right;
      if (last === at) return;
      [heap[at], heap[last]] = [heap[last] as Stamped, heap[at] as Stamped];
      at = last;
    }
  };
  const up = (from: number) => {
    for (let at = from; at > 0; ) {
      const parent = (at - 1) >> 1;
      if (!before(heap[parent] as Stamped, heap[at] as Stamped)) return;
      [heap[at], heap[parent]] = [heap[parent] as Stamped, heap[at] as Stamped];
      at = parent;
    }
  };
  for (let i = 0; i < files.length && limit > 0; i++) {
    const entry = { file: files[i] ?? "", mtime: mtimes[i] ?? 0 };
    if (heap.length < limit) {
      heap.push(entry);
      up(heap.length - 1);
    } else if (before(entry, heap[0] as Stamped)) {
      heap[0] = entry;
      down(0);
    }
  }
  heap.sort((a, b) => (before(a, b) ? -1 : 1));
  return heap.map((entry) => entry.file);
}
