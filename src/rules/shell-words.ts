/**
 * One shell word as bash reads it, from the source text the bash grammar marked as a word. The
 * grammar decides where words begin and end; this module removes quotes (bash's "quote
 * removal") and refuses any word whose meaning is more than its letters: an expansion of any
 * kind, a glob, braces, a tilde, or a character that would have ended the word in bash (so a
 * word the grammar drew differently from bash is refused, never read).
 */
import type { Refusal } from "./refusal.ts";

/** A word's letters after quote removal, or why it has more meaning than its letters. */
export type WordReading =
  | { readonly ok: true; readonly word: string }
  | { readonly ok: false; readonly reason: Refusal };

/** Unquoted characters that end a word in bash, or that the grammar keeps out of plain words. */
const ENDS_WORD = new Set([" ", "\t", "\n", ";", "&", "|", "<", ">", "(", ")"]);

/** Unquoted characters that make bash expand the word, by what they start. */
const EXPANDS = new Map<string, Refusal>([
  ["$", "expansion"],
  ["`", "command-substitution"],
  ["*", "glob"],
  ["?", "glob"],
  ["[", "glob"],
  ["{", "brace-expansion"],
  ["}", "brace-expansion"],
  ["~", "tilde-expansion"],
]);

/** Inside double quotes a backslash escapes only these (and a newline, which it removes). */
const ESCAPED_IN_DOUBLE_QUOTES = new Set(['"', "\\", "$", "`"]);

/**
 * Reads `source`, the exact text of one word. Bash would see `word`: single quotes keep every
 * character, double quotes keep all but `\`-escapes of `"`, `\`, `$` and `` ` `` (and drop a
 * `\`-newline), an unquoted `\` keeps the next character (and a `\`-newline is dropped).
 */
export function readWord(source: string): WordReading {
  const refuse = (reason: Refusal): WordReading => ({ ok: false, reason });
  // A `#` that starts a word starts a comment: the grammar should have said so.
  if (source.startsWith("#")) return refuse("comment");
  let word = "";
  let i = 0;
  while (i < source.length) {
    const c = source[i] ?? "";
    if (c === "'") {
      const end = source.indexOf("'", i + 1);
      if (end === -1) return refuse("parse-error");
      word += source.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        const d = source[i];
        if (d === undefined) return refuse("parse-error");
        if (d === '"') break;
        if (d === "$") return refuse("expansion");
        if (d === "`") return refuse("command-substitution");
        if (d === "\\") {
          const next = source[i + 1];
          if (next === "\n") {
            i += 2;
            continue;
          }
          if (next !== undefined && ESCAPED_IN_DOUBLE_QUOTES.has(next)) {
            word += next;
            i += 2;
            continue;
          }
        }
        word += d;
        i++;
      }
      i++;
    } else if (c === "\\") {
      const next = source[i + 1];
      if (next === undefined) return refuse("parse-error");
      if (next !== "\n") word += next;
      i += 2;
    } else {
      const expands = EXPANDS.get(c);
      if (expands !== undefined) return refuse(expands);
      if (ENDS_WORD.has(c)) return refuse("unreadable");
      word += c;
      i++;
    }
  }
  return { ok: true, word };
}

/** Words bash reads as its own syntax when they stand where a command's name goes. */
const RESERVED = new Set([
  "!",
  "[[",
  "]]",
  "case",
  "coproc",
  "do",
  "done",
  "elif",
  "else",
  "esac",
  "fi",
  "for",
  "function",
  "if",
  "in",
  "select",
  "then",
  "time",
  "until",
  "while",
]);

/** `NAME=`, `NAME+=` or `NAME[`: an assignment, when it opens a simple command. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\+?=|\[)/;

/**
 * Reads the word in a command's name position: as `readWord`, and refused when bash would read
 * it as a reserved word (`if`, `time`, `!`, ...) or an assignment (`NAME=value`).
 */
export function readCommandName(source: string): WordReading {
  if (ASSIGNMENT.test(source)) return { ok: false, reason: "assignment" };
  const read = readWord(source);
  if (read.ok && RESERVED.has(read.word)) return { ok: false, reason: "keyword" };
  return read;
}
