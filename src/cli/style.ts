/**
 * Colour and styling for the terminal surfaces. Styling is on only for a terminal that wants
 * it: not when `NO_COLOR` is set (https://no-color.org), not for `TERM=dumb`, never into a pipe.
 */

/** Wraps text in SGR styling, or returns it unchanged when styling is off. */
export interface Style {
  readonly enabled: boolean;
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/** Whether output to a stream should be styled. */
export function wantsColor(env: Readonly<Record<string, string | undefined>>, isTTY: boolean) {
  if (!isTTY) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return !isDumbTerminal(env);
}

/** `TERM=dumb` (or no `TERM`): a terminal that understands no cursor movement either. */
export function isDumbTerminal(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.TERM === undefined || env.TERM === "" || env.TERM === "dumb";
}

// Each line is styled on its own and newlines stay outside the styling, so any line of the
// result can be printed (or erased and drawn again) without the lines around it.
const sgr = (open: number, close: number) => (text: string) =>
  text
    .split("\n")
    .map((line) => (line === "" ? line : `\u001b[${open}m${line}\u001b[${close}m`))
    .join("\n");
const plain = (text: string) => text;

/** The styling functions for one stream. */
export function createStyle(enabled: boolean): Style {
  if (!enabled) {
    return {
      enabled,
      dim: plain,
      bold: plain,
      red: plain,
      green: plain,
      yellow: plain,
      cyan: plain,
    };
  }
  return {
    enabled,
    dim: sgr(2, 22),
    bold: sgr(1, 22),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
  };
}
