/** A short view of a text change for the terminal: the first changed line and what differs. */

/** Lines shown per side before the rest is summarised. */
const MAX_SHOWN = 12;

/**
 * The changed block between two texts (common leading and trailing lines trimmed), as
 * `- old` / `+ new` lines under a `@@ line N` header. A new file (`oldText` null) is all `+`.
 */
export function changedLines(oldText: string | null, newText: string): string[] {
  const before = oldText === null ? [] : linesOf(oldText);
  const after = linesOf(newText);
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const header = oldText === null ? "@@ new file" : `@@ line ${start + 1}`;
  const removed = clip(before.slice(start, endBefore).map((line) => `- ${line}`));
  const added = clip(after.slice(start, endAfter).map((line) => `+ ${line}`));
  return [header, ...removed, ...added];
}

/** The lines of a text; a final newline ends the last line rather than starting an empty one. */
function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

function clip(lines: string[]): string[] {
  if (lines.length <= MAX_SHOWN) return lines;
  return [...lines.slice(0, MAX_SHOWN), `  … ${lines.length - MAX_SHOWN} more lines`];
}
