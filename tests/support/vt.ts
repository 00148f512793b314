/**
 * A small model of a terminal screen for tests: feed it the bytes a program drew and read the
 * rows a person would see. It knows what dsh draws with: printable text that wraps at the
 * right edge (a wide character wraps whole), CR, LF, cursor up/down/forward, erase below and
 * to the end of the line, home and clear; SGR and private modes are ignored. Scrolled-off rows
 * are kept, so `lines()` is the whole transcript.
 */

export interface VirtualTerminal {
  write(bytes: string): void;
  /** Every row so far, top to bottom, trailing blanks cut. */
  lines(): string[];
  /** The rows of the visible screen (the last `rows` of the transcript). */
  screen(): string[];
  readonly cursor: { readonly row: number; readonly col: number };
}

const SEQUENCE =
  /^\u001b(?:\[([?]?)([0-9;]*)([ -/]*)([@-~])|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[\s\S])/;

export function createVirtualTerminal(columns: number, rows: number): VirtualTerminal {
  const grid: string[][] = [[]];
  let row = 0;
  let col = 0;
  /** Set after a character lands in the last column: the next one wraps first. */
  let pendingWrap = false;
  const top = () => Math.max(0, grid.length - rows);
  const ensure = (r: number) => {
    while (grid.length <= r) grid.push([]);
  };
  const put = (char: string) => {
    const width = Math.max(0, Bun.stringWidth(char));
    if (width === 0) return;
    if (pendingWrap || col + width > columns) {
      row += 1;
      col = 0;
      pendingWrap = false;
    }
    ensure(row);
    const line = grid[row] ?? [];
    while (line.length < col) line.push(" ");
    line[col] = char;
    if (width === 2) line[col + 1] = "";
    col += width;
    if (col >= columns) {
      col = columns - 1;
      pendingWrap = true;
    }
  };
  return {
    write(bytes) {
      let i = 0;
      while (i < bytes.length) {
        const char = bytes[i] ?? "";
        if (char === "\u001b") {
          const match = SEQUENCE.exec(bytes.slice(i, i + 64));
          const whole = match?.[0] ?? char;
          i += whole.length;
          if (match?.[4] === undefined || match[1] === "?") continue;
          const n = Number(match[2] || "0");
          const first = top();
          switch (match[4]) {
            case "A":
              row = Math.max(first, row - Math.max(1, n));
              pendingWrap = false;
              break;
            case "B":
              row += Math.max(1, n);
              ensure(row);
              pendingWrap = false;
              break;
            case "C":
              col = Math.min(columns - 1, col + Math.max(1, n));
              pendingWrap = false;
              break;
            case "J":
              if (n === 2) {
                for (let r = first; r < grid.length; r++) grid[r] = [];
              } else {
                grid[row] = (grid[row] ?? []).slice(0, col);
                grid.length = row + 1;
              }
              break;
            case "K":
              grid[row] = (grid[row] ?? []).slice(0, col);
              break;
            case "H":
              row = first;
              col = 0;
              pendingWrap = false;
              break;
            default:
              break;
          }
          continue;
        }
        const point = bytes.codePointAt(i) ?? 0;
        const text = String.fromCodePoint(point);
        i += text.length;
        if (text === "\r") {
          col = 0;
          pendingWrap = false;
        } else if (text === "\n") {
          row += 1;
          ensure(row);
          pendingWrap = false;
        } else if (text === "\b") col = Math.max(0, col - 1);
        else if (point >= 0x20) put(text);
      }
    },
    lines: () => trimmed(grid),
    screen: () => trimmed(grid.slice(top())),
    get cursor() {
      return { row: row - top(), col };
    },
  };
}

function trimmed(grid: readonly string[][]): string[] {
  const lines = grid.map((line) => line.join("").trimEnd());
  while (lines.length > 0 && lines.at(-1) === "") lines.pop();
  return lines;
}
