/**
 * Raw terminal input to keys: printable text, a bracketed paste (one piece, newlines kept), and
 * the editing keys the chat's line editor knows. Escape sequences split across reads are held
 * back until complete; unknown ones are dropped, never inserted as text. A lone ESC is the Esc
 * key once nothing follows it for `ESC_TIMEOUT_MS` (the caller calls `flush()` then), and ESC
 * followed by a control key or by a letter with no Alt meaning is Esc and that key, so a key
 * typed right after Esc is never lost.
 */
import { terminalText } from "../render/terminal-text.ts";

export type KeyName =
  | "enter"
  | "newline"
  | "backspace"
  | "delete"
  | "left"
  | "right"
  | "up"
  | "down"
  | "home"
  | "end"
  | "word-left"
  | "word-right"
  | "kill-line-start"
  | "kill-line-end"
  | "kill-word"
  | "interrupt"
  | "escape"
  | "tab"
  | "eof"
  | "clear-screen";

export type Key =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "paste"; readonly text: string }
  | { readonly type: "key"; readonly name: KeyName };

/** How long a lone ESC waits for the rest of a sequence before it counts as the Esc key. */
export const ESC_TIMEOUT_MS = 50;

const PASTE_START = "\u001b[200~";
const PASTE_END = "\u001b[201~";

const SEQUENCES: Record<string, KeyName> = {
  "\u001b[A": "up",
  "\u001b[B": "down",
  "\u001b[C": "right",
  "\u001b[D": "left",
  "\u001bOA": "up",
  "\u001bOB": "down",
  "\u001bOC": "right",
  "\u001bOD": "left",
  "\u001b[H": "home",
  "\u001b[F": "end",
  "\u001bOH": "home",
  "\u001bOF": "end",
  "\u001b[1~": "home",
  "\u001b[4~": "end",
  "\u001b[7~": "home",
  "\u001b[8~": "end",
  "\u001b[3~": "delete",
  "\u001b[1;5C": "word-right",
  "\u001b[1;5D": "word-left",
  "\u001b[1;3C": "word-right",
  "\u001b[1;3D": "word-left",
  "\u001bb": "word-left",
  "\u001bf": "word-right",
  "\u001b\r": "newline",
  "\u001b\n": "newline",
  "\u001b\u007f": "kill-word",
};

const CONTROLS: Record<string, KeyName> = {
  "\r": "enter",
  "\n": "newline",
  "\u007f": "backspace",
  "\b": "backspace",
  "\u0001": "home",
  "\u0005": "end",
  "\u0002": "left",
  "\u0006": "right",
  "\u0010": "up",
  "\u000e": "down",
  "\u0015": "kill-line-start",
  "\u000b": "kill-line-end",
  "\u0017": "kill-word",
  "\u0003": "interrupt",
  "\u0004": "eof",
  "\u000c": "clear-screen",
  "\t": "tab",
};

// A complete CSI (ESC [ params final) or SS3 (ESC O x) sequence, or ESC and one character.
const ESCAPE = /^\u001b(?:\[[0-?]*[ -/]*[@-~]|O[ -~]|[\s\S])/;
// The start of an escape sequence that more input may complete.
const PARTIAL = /^\u001b(?:\[[0-?]*[ -/]*|O)?$/;

export interface KeyReader {
  /** The keys in `data`, given what earlier reads left open. */
  push(data: string): Key[];
  /** Whether the reads so far end in an unfinished escape sequence (a lone ESC, say). */
  readonly holding: boolean;
  /**
   * Ends an unfinished escape sequence: nothing followed it in time, so a lone ESC is the Esc
   * key, and what a partial sequence held after ESC is typed text.
   */
  flush(): Key[];
}

export function createKeyReader(): KeyReader {
  let carry = "";
  let paste: string | undefined;
  const push = (data: string): Key[] => {
    let input = carry + data;
    carry = "";
    const keys: Key[] = [];
    let text = "";
    const flushText = () => {
      if (text !== "") keys.push({ type: "text", text });
      text = "";
    };
    while (input.length > 0) {
      if (paste !== undefined) {
        const end = input.indexOf(PASTE_END);
        if (end === -1) {
          // Keep a possible start of the end marker for the next read.
          const keep = longestMarkerPrefix(input);
          paste += input.slice(0, input.length - keep);
          carry = input.slice(input.length - keep);
          return keys;
        }
        paste += input.slice(0, end);
        // Pasted text is echoed as typed: whatever it carried, no escape reaches the screen.
        keys.push({ type: "paste", text: terminalText(paste) });
        paste = undefined;
        input = input.slice(end + PASTE_END.length);
        continue;
      }
      const char = input[0] ?? "";
      if (char === "\u001b") {
        if (input.startsWith(PASTE_START)) {
          flushText();
          paste = "";
          input = input.slice(PASTE_START.length);
          continue;
        }
        if (PARTIAL.test(input) || PASTE_START.startsWith(input)) {
          carry = input;
          break;
        }
        const match = ESCAPE.exec(input)?.[0] ?? char;
        const name = SEQUENCES[match];
        flushText();
        if (name !== undefined) {
          keys.push({ type: "key", name });
          input = input.slice(match.length);
        } else if (match.length === 2 && escThenKey(match[1] ?? "")) {
          // Esc, then a key typed quickly after it: both count.
          keys.push({ type: "key", name: "escape" });
          input = input.slice(1);
        } else input = input.slice(match.length);
        continue;
      }
      const control = CONTROLS[char];
      if (control !== undefined) {
        flushText();
        keys.push({ type: "key", name: control });
      } else if (char >= " ") {
        text += char;
      }
      input = input.slice(1);
    }
    flushText();
    return keys;
  };
  return {
    push,
    get holding() {
      return paste === undefined && carry.startsWith("\u001b");
    },
    flush() {
      if (paste !== undefined || !carry.startsWith("\u001b")) return [];
      const rest = carry.slice(1);
      carry = "";
      const keys: Key[] = [{ type: "key", name: "escape" }];
      return rest === "" ? keys : [...keys, ...push(rest)];
    },
  };
}

/**
 * After ESC, a character that makes no Alt-combination dsh knows: a control key (but Enter and
 * Backspace, which make Alt-Enter and Alt-Backspace), another ESC, or a letter, digit or sign.
 */
function escThenKey(next: string): boolean {
  if (next === "\r" || next === "\n" || next === "\u007f") return false;
  const code = next.charCodeAt(0);
  if (code >= 0xd800 && code <= 0xdbff) return true;
  return next < " " || /^[\p{L}\p{N}\p{P}\p{S} ]$/u.test(next);
}

function longestMarkerPrefix(text: string): number {
  for (let n = Math.min(PASTE_END.length - 1, text.length); n > 0; n--) {
    if (PASTE_END.startsWith(text.slice(-n))) return n;
  }
  return 0;
}
