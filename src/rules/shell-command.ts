/**
 * Splits shell text into the simple commands a permission rule can be matched against. It is
 * deliberately conservative: anything whose effect it cannot read from the words alone
 * (command or process substitution, redirections to files, subshells, variables or globs in
 * a command's name, assignments before it, here-documents, unbalanced quotes) makes the whole
 * text unmatchable, so a rule never allows more than it says.
 */

export type ParsedCommand =
  /** Each simple command's words, quotes removed, in order. */
  | { readonly ok: true; readonly commands: readonly (readonly string[])[] }
  | { readonly ok: false; readonly reason: string };

/** Redirections that only join or discard output; they write no file. */
const HARMLESS_REDIRECTION = /^(?:[0-9]?>&[0-9]|[0-9]?>&-|[0-9]?>\/dev\/null|&>\/dev\/null)$/;

/** Parses `text`; see the module comment for what is refused. */
export function parseCommand(text: string): ParsedCommand {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endCommand = (): string | undefined => {
    endWord();
    if (words.length === 0)
      return commands.length === 0 ? "an operator starts the text" : undefined;
    commands.push(words);
    words = [];
    return undefined;
  };
  const refuse = (reason: string): ParsedCommand => ({ ok: false, reason });

  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? "";
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) return refuse("an unclosed quote");
      word += text.slice(i + 1, end);
      inWord = true;
      i = end;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        const d = text[j];
        if (d === "\\") {
          j++;
          word += text[j] ?? "";
          continue;
        }
        if (d === "`" || (d === "$" && text[j + 1] === "("))
          return refuse("a command substitution");
        word += d;
      }
      if (j >= text.length) return refuse("an unclosed quote");
      inWord = true;
      i = j;
      continue;
    }
    if (c === "\\") {
      if (text[i + 1] === "\n") {
        i++;
        continue;
      }
      word += text[i + 1] ?? "";
      inWord = true;
      i++;
      continue;
    }
    if (c === "`") return refuse("a command substitution");
    if (c === "$" && text[i + 1] === "(") return refuse("a command substitution");
    if ((c === "<" || c === ">") && text[i + 1] === "(") return refuse("a process substitution");
    if (c === "(" || c === ")") return refuse("a subshell");
    if (c === " " || c === "\t") {
      endWord();
      continue;
    }
    if (c === ";" || c === "\n" || c === "|" || c === "&") {
      // `2>&1`-style redirections are words here, handled below.
      if (c === "&" && (word.endsWith(">") || text[i + 1] === ">")) {
        word += c;
        inWord = true;
        continue;
      }
      const problem = endCommand();
      if (problem !== undefined) return refuse(problem);
      if ((c === "|" || c === "&") && text[i + 1] === c) i++;
      continue;
    }
    if (c === ">" || c === "<") {
      // A redirection: take its whole token and keep only the ones that write no file.
      let j = i;
      let token = word;
      while (j < text.length && !" \t;|\n".includes(text[j] ?? "")) token += text[j++];
      if (c === "<" || !HARMLESS_REDIRECTION.test(token)) return refuse("a redirection");
      word = "";
      inWord = false;
      i = j - 1;
      continue;
    }
    word += c;
    inWord = true;
  }
  endWord();
  if (words.length > 0) commands.push(words);
  if (commands.length === 0) return refuse("no command");
  for (const command of commands) {
    const name = command[0] ?? "";
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(name))
      return refuse("a variable assignment before a command");
    if (/[$*?[\]{}~]/.test(name)) return refuse("a command name that expands");
    if (command.some((w) => w.includes("$"))) return refuse("a variable expansion");
    if (name === "<<" || command.some((w) => w.startsWith("<<"))) return refuse("a here-document");
  }
  return { ok: true, commands };
}
