/**
 * The words of a command's arguments, for `$1`…`$9` and MCP prompt arguments: split at blanks;
 * a word may be quoted with `"…"` or `'…'` to hold blanks (the quotes are removed), and inside
 * double quotes `\"` and `\\` stand for `"` and `\`. Nothing else is special: this is text for
 * a prompt, never a shell command.
 */

/** The words of `text`; an unclosed quote runs to the end. */
export function splitArguments(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else if (quote === '"' && ch === "\\" && (text[i + 1] === '"' || text[i + 1] === "\\")) {
        word = (word ?? "") + text[i + 1];
        i++;
      } else word = (word ?? "") + ch;
      continue;
    }
    if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= "";
    } else word = (word ?? "") + ch;
  }
  if (word !== undefined) words.push(word);
  return words;
}
