/**
 * One ignore file's patterns, as gitignore(5) defines them: blank lines and `#` comments skip;
 * `\` escapes a leading `#` or `!` and trailing spaces; `!` negates; a trailing `/` matches
 * directories only; a pattern with a `/` at its start or middle is anchored to the file's
 * directory, one without matches a name at any depth; `*` and `?` stay within a segment, `**`
 * crosses them, `[...]` is a class. Matching is Bun's native glob on the relative path, but
 * for an unanchored pattern that is a plain name (`target`) or `*` and a plain suffix
 * (`*.log`): those decide by the entry's own name, with no path built for it (a walk asks about
 * every entry, and in a fresh process building and matching each path is a good part of it).
 */
import { type PlainName, matchesName, plainName } from "./name-pattern.ts";

interface Rule {
  readonly glob: Bun.Glob;
  /** For a plain unanchored pattern: the name it is, or the suffix after its `*`. */
  readonly name?: PlainName;
  readonly negate: boolean;
  readonly dirOnly: boolean;
}

/** The verdict of the last rule that matched, or undefined when none did. */
export type Verdict = "ignored" | "unignored" | undefined;

export interface IgnoreRules {
  /** `rel`: the path relative to the ignore file's directory, `/`-separated. */
  test(rel: string, isDirectory: boolean): Verdict;
  /** `test(dir + name)`: `dir` is "" or ends with `/`, `name` is one segment. */
  testIn(dir: string, name: string, isDirectory: boolean): Verdict;
}

/** Compiles the text of one ignore file. */
export function compileIgnoreFile(text: string): IgnoreRules {
  const rules: Rule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const rule = compileLine(raw);
    if (rule !== undefined) rules.push(rule);
  }
  const testIn = (dir: string, name: string, isDirectory: boolean): Verdict => {
    let rel: string | undefined;
    for (let i = rules.length - 1; i >= 0; i--) {
      const rule = rules[i] as Rule;
      if (rule.dirOnly && !isDirectory) continue;
      const matched =
        rule.name === undefined
          ? rule.glob.match((rel ??= dir + name))
          : matchesName(rule.name, name);
      if (matched) return rule.negate ? "unignored" : "ignored";
    }
    return undefined;
  };
  return {
    testIn,
    test(rel, isDirectory) {
      const cut = rel.lastIndexOf("/") + 1;
      return testIn(rel.slice(0, cut), rel.slice(cut), isDirectory);
    },
  };
}

function compileLine(raw: string): Rule | undefined {
  // Trailing spaces go unless escaped with a backslash.
  let line = raw.replace(/(?<!\\)\s+$/, "");
  if (line === "" || line.startsWith("#")) return undefined;
  let negate = false;
  if (line.startsWith("!")) {
    negate = true;
    line = line.slice(1);
  } else if (line.startsWith("\\!") || line.startsWith("\\#")) {
    line = line.slice(1);
  }
  const dirOnly = line.endsWith("/");
  if (dirOnly) line = line.slice(0, -1);
  if (line === "") return undefined;
  const anchored = line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  // Braces mean nothing to git; Bun's glob would expand them.
  const pattern = line.replace(/[{}]/g, "\\$&").replace(/\\ /g, " ");
  return {
    glob: new Bun.Glob(anchored ? pattern : `**/${pattern}`),
    name: anchored ? undefined : plainName(pattern),
    negate,
    dirOnly,
  };
}
