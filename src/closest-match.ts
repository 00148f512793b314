/**
 * The known name a mistyped one most likely meant, for "did you mean" hints: a config key, a
 * setting's value, a slash command. Close means one edit away for a short name, two for a
 * longer one (an edit is an insertion, a deletion, a substitution or two swapped letters), and
 * never more than a third of the name: an unrelated word is not a typo of anything.
 */

/** The optimal string alignment distance of `a` and `b` (case-insensitive). */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const rows: number[][] = [];
  for (let i = 0; i <= s.length; i++) {
    const row = [i];
    for (let j = 1; j <= t.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      const above = rows[i - 1] ?? [];
      let best = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return rows[s.length]?.[t.length] ?? Math.max(s.length, t.length);
}

/** The most edits a name of this length may be away from what it meant. */
function allowedEdits(length: number): number {
  if (length <= 2) return 0;
  return Math.min(length <= 5 ? 1 : 2, Math.floor(length / 3));
}

/**
 * The candidate `word` was most likely meant to be, or undefined when none is close.
 * @param word what was typed
 * @param candidates the names it may have meant
 */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    if (candidate.toLowerCase() === word.toLowerCase()) return candidate;
    const distance = editDistance(word, candidate);
    if (
      distance <= allowedEdits(Math.max(word.length, candidate.length)) &&
      distance < bestDistance
    ) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
