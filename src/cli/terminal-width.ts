/**
 * Where text lands on a terminal: how many rows a line takes once the terminal wraps it, and
 * where the cursor ends up. The live region is erased by moving the cursor up over what it drew,
 * so these counts must be the terminal's own: a wide character that does not fit the last
 * column wraps whole, SGR sequences take no room.
 */

/** Where writing `text` from column 0 leaves the cursor. */
export interface TextEnd {
  /** Rows below the first one. */
  readonly row: number;
  /** The column; `columns` when the last row is exactly full (the terminal waits to wrap). */
  readonly col: number;
}

// An SGR or other CSI sequence: what is left in text once it is made safe to print.
const CSI = /\u001b\[[0-?]*[ -/]*[@-~]/y;

/**
 * Walks `text` as the terminal lays it out, calling `step` before each printable character
 * with the row and column it will start at; `step` returning true stops the walk.
 */
function walk(
  text: string,
  columns: number,
  step?: (index: number, row: number, col: number) => boolean,
): TextEnd {
  let row = 0;
  let col = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x1b) {
      CSI.lastIndex = i;
      if (CSI.test(text)) {
        i = CSI.lastIndex;
        continue;
      }
    }
    const point = text.codePointAt(i) ?? 0;
    const size = point > 0xffff ? 2 : 1;
    const width = code < 0x7f ? (code >= 0x20 ? 1 : 0) : Bun.stringWidth(text.slice(i, i + size));
    if (width > 0 && col + width > columns) {
      row += 1;
      col = 0;
    }
    if (step?.(i, row, col) === true) return { row, col };
    col += width;
    i += size;
  }
  return { row, col };
}

/** Where writing `text` (one line, no newline) from column 0 leaves the cursor. */
export function endOf(text: string, columns: number): TextEnd {
  return walk(text, Math.max(1, columns));
}

/** The rows one line takes (at least 1). */
export function rowsOf(text: string, columns: number): number {
  return endOf(text, columns).row + 1;
}

/**
 * The index in `text` where its row `row` starts (0-based), or `text.length` when the text
 * takes fewer rows. Cutting there leaves whole rows before the cut.
 */
export function rowStart(text: string, columns: number, row: number): number {
  if (row <= 0) return 0;
  let found = text.length;
  walk(text, Math.max(1, columns), (index, at) => {
    if (at < row) return false;
    found = index;
    return true;
  });
  return found;
}
