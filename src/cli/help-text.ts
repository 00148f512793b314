/**
 * `/help` laid out for the terminal's width: each command's usage in a column, its description
 * wrapped beside it at word boundaries; too narrow for both side by side, the description goes
 * under its usage, indented. No line reaches the terminal's last column.
 */

/** One row of the list. */
export interface HelpRow {
  /** `/model [ID]` */
  readonly usage: string;
  readonly description: string;
}

/** The narrowest description column worth keeping beside the usages. */
const MIN_DESCRIPTION = 28;
const GAP = "  ";
const INDENT = "    ";

/**
 * The rows as lines narrower than `columns` (one column stays free: a line that fills the
 * last one would leave the cursor waiting to wrap), each ending with a newline.
 */
export function layoutHelp(rows: readonly HelpRow[], columns: number): string {
  const width = Math.max(20, columns - 1);
  const usageWidth = Math.max(...rows.map((row) => Bun.stringWidth(row.usage)));
  const room = width - usageWidth - GAP.length;
  const out: string[] = [];
  for (const row of rows) {
    if (room >= MIN_DESCRIPTION) {
      const [first = "", ...rest] = wrap(row.description, room);
      out.push(`${row.usage.padEnd(usageWidth)}${GAP}${first}`.trimEnd());
      for (const line of rest) out.push(`${" ".repeat(usageWidth)}${GAP}${line}`);
    } else {
      out.push(...wrap(row.usage, width));
      for (const line of wrap(row.description, width - INDENT.length)) out.push(INDENT + line);
    }
  }
  return out.map((line) => `${line}\n`).join("");
}

/** `text` broken at spaces into lines of at most `width`; a longer word is cut. */
function wrap(text: string, width: number): string[] {
  return Bun.wrapAnsi(text, Math.max(1, width), { hard: true, trim: true }).split("\n");
}
