/**
 * glob's order: newest first, then by path. Only the first few are shown, so the time of the
 * last one shown is found first, by a native sort of the times alone, and only the files at
 * least that new are ordered: a comparator run over every match (a sort, or a heap when the
 * newest come last, as in a tree written in walk order) costs tens of milliseconds the first
 * time it runs.
 */

/**
 * The first `limit` of `files` by modification time (`mtimes`, in the same order), newest
 * first, then by path: what sorting them all and taking the first `limit` would give. Paths
 * are unique.
 */
export function newestFirst(
  files: readonly string[],
  mtimes: Float64Array,
  limit: number,
): string[] {
  const count = Math.min(limit, files.length);
  if (count <= 0) return [];
  // The `count`th newest time: every file newer comes first, then those of that time by path.
  const last = mtimes.slice(0, files.length).sort()[files.length - count] ?? 0;
  const newer: number[] = [];
  const tied: string[] = [];
  for (let i = 0; i < files.length; i++) {
    const mtime = mtimes[i] ?? 0;
    if (mtime > last) newer.push(i);
    else if (mtime === last) tied.push(files[i] ?? "");
  }
  // Fewer than `count` are newer; the tied ones are ordered by the native string sort.
  newer.sort((a, b) => {
    const byTime = (mtimes[b] ?? 0) - (mtimes[a] ?? 0);
    return byTime !== 0 ? byTime : (files[a] ?? "") < (files[b] ?? "") ? -1 : 1;
  });
  tied.sort();
  const first = newer.map((i) => files[i] ?? "");
  for (const file of tied) {
    if (first.length >= count) break;
    first.push(file);
  }
  return first;
}
