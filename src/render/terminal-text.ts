/**
 * Turns untrusted text into text a model, an editor card and a terminal can show: ANSI and
 * OSC escapes, NULs and other control characters removed. Command output has its
 * carriage-return progress lines collapsed; text for the terminal surfaces (a model's answer,
 * a tool title, a path, an error) keeps every character it shows, with a carriage return
 * turned into a line break so nothing can be drawn over. Every print path of `dsh chat` and
 * `dsh exec` goes through `terminalText` or `createTerminalTextSanitizer`.
 */

// CSI (with its C1 form), OSC/DCS/APC/PM strings ended by BEL or ST, and two-byte escapes.
const ESCAPES =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001b[\]PX^_][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[ -/]*[0-~]/g;
// C0 controls except tab, LF and CR; DEL; C1 controls.
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
// An escape sequence still open at the end of a chunk: wait for its end.
const OPEN_ESCAPE =
  /(?:\u001b(?:\[[0-?]*[ -/]*|[\]PX^_][^\u0007\u001b]*\u001b?|[ -/]*)?|\u009b[0-?]*[ -/]*)$/;

/** Removes escape sequences and control characters, keeping tab, LF and CR. */
export function stripControls(text: string): string {
  return text.replace(ESCAPES, "").replace(CONTROLS, "");
}

/** Keeps, for each line, what a terminal would show last after carriage returns. */
export function collapseCarriageReturns(text: string): string {
  if (!text.includes("\r")) return text;
  return text
    .split("\n")
    .map((line) => {
      const trimmed = line.endsWith("\r") ? line.replace(/\r+$/, "") : line;
      const cut = trimmed.lastIndexOf("\r");
      return cut < 0 ? trimmed : trimmed.slice(cut + 1);
    })
    .join("\n");
}

/** The whole treatment for a complete piece of output. */
export function sanitizeOutput(text: string): string {
  return collapseCarriageReturns(stripControls(text));
}

/**
 * Sanitises output that arrives in pieces: holds back an escape sequence cut by a chunk
 * boundary, collapses carriage returns within what it has, and shows a carriage return it
 * cannot resolve yet as a line break (live output only; the final text is collapsed whole).
 */
export function createStreamSanitizer(): { push(text: string): string; end(): string } {
  let carry = "";
  let atLineStart = true;
  const treat = (text: string): string => {
    const lines = stripControls(text).split("\n");
    const partial = lines.pop() ?? "";
    const done = lines.map(collapseCarriageReturns);
    let out = done.length > 0 ? `${done.join("\n")}\n` : "";
    let rest = partial.replace(/\r+/g, "\n");
    if ((out.length > 0 ? true : atLineStart) && rest.startsWith("\n")) rest = rest.slice(1);
    out += rest;
    if (out.length > 0) atLineStart = out.endsWith("\n");
    return out;
  };
  return {
    push(text: string): string {
      const joined = carry + text;
      const open = OPEN_ESCAPE.exec(joined);
      // A long unterminated string is not a sequence worth waiting for.
      const held = open !== null && open[0].length > 0 && open[0].length < 256 ? open[0] : "";
      carry = held;
      return treat(held.length > 0 ? joined.slice(0, -held.length) : joined);
    },
    end(): string {
      const rest = carry;
      carry = "";
      return treat(rest);
    },
  };
}

/**
 * A whole untrusted string made safe to print: no escape sequence or control character left
 * but newline and tab, each carriage return (or CRLF) a newline.
 */
export function terminalText(text: string): string {
  return stripControls(text).replace(/\r\n?/g, "\n");
}

/**
 * `terminalText` for text that arrives in pieces (streamed answers and reasoning): an escape
 * sequence cut by a chunk boundary is held back until it ends, and so is a final carriage
 * return, which may be the first half of a CRLF.
 */
export function createTerminalTextSanitizer(): { push(text: string): string; end(): string } {
  let carry = "";
  return {
    push(text) {
      const joined = carry + text;
      const open = OPEN_ESCAPE.exec(joined);
      let held = open !== null && open[0].length > 0 && open[0].length < 256 ? open[0] : "";
      if (held === "" && joined.endsWith("\r")) held = "\r";
      carry = held;
      return terminalText(held.length > 0 ? joined.slice(0, -held.length) : joined);
    },
    end() {
      const rest = carry;
      carry = "";
      return terminalText(rest);
    },
  };
}
