/**
 * Which files a search skips, by git's rules and ripgrep's: `.gitignore` at every level,
 * `.git/info/exclude` and the user's global excludes file inside a repository, then `.ignore`
 * and `.rgignore` (which win over `.gitignore`, as in ripgrep). Patterns follow gitignore(5):
 * negation, directory-only (`dir/`), anchored (`/x`, `a/b`) and `**` patterns, each relative to
 * the directory of the file that holds it; a deeper file's rules win over a shallower one's.
 * One file's patterns are compiled by `gitignore.ts`; how the files stack is here.
 */
import { readFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { type IgnoreRules, compileIgnoreFile } from "./gitignore.ts";

/** One directory's rules: the directory and its compiled patterns. */
interface Level {
  readonly dir: string;
  /** `dir` with a trailing separator. */
  readonly prefix: string;
  readonly rules: IgnoreRules;
}

function level(dir: string, rules: IgnoreRules): Level {
  return { dir, prefix: dir.endsWith(sep) ? dir : `${dir}${sep}`, rules };
}

/** The rules in force in one directory: its ancestors' and its own. */
export interface IgnoreScope {
  /** Whether `name` (an entry of this scope's directory) is ignored. */
  ignores(name: string, isDirectory: boolean): boolean;
  /** The scope of a subdirectory; its ignore files are read when it has any. */
  enter(name: string, hasIgnoreFiles: boolean): IgnoreScope;
}

export interface IgnoreOptions {
  /** The user's home, where git's global excludes file is found; none is read without it. */
  readonly home?: string;
  /** `$XDG_CONFIG_HOME` when it is not `~/.config`. */
  readonly configHome?: string;
}

/** Files in a directory whose patterns apply below it, lowest precedence first. */
const IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"];

/** Whether a directory entry named `name` is an ignore file. */
export function isIgnoreFile(name: string): boolean {
  return name === ".gitignore" || name === ".ignore" || name === ".rgignore";
}

/**
 * The scope of `base`, with the rules of its ancestors up to the repository root. Outside a
 * repository only the ignore files from `base` down apply (an ancestor's, such as a home
 * directory's own `.gitignore`, would hide whole projects). When `base` itself is ignored by
 * its ancestors' rules, the search named it on purpose: only the rules from `base` down apply.
 */
export function ignoreScopeOf(base: string, options: IgnoreOptions = {}): IgnoreScope {
  const chain: string[] = [];
  let repo: string | undefined;
  for (let dir = base; ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (isRepositoryRoot(dir)) {
      repo = dir;
      break;
    }
    if (dirname(dir) === dir) {
      chain.splice(0, chain.length - 1);
      break;
    }
  }
  const levels: Level[] = [];
  if (repo !== undefined) {
    const repoRules = repositoryRules(repo, options);
    if (repoRules !== undefined) levels.push(level(repo, repoRules));
  }
  for (const dir of chain) {
    const own = rulesIn(dir);
    if (own !== undefined) levels.push(level(dir, own));
  }
  // Named on purpose: a base its ancestors' rules ignore is searched, with its own rules only.
  const above = levels.filter((level) => level.dir !== base);
  if (base !== repo && isIgnored(above, base, true)) {
    const own = rulesIn(base);
    return scope(own === undefined ? [] : [level(base, own)], base);
  }
  return scope(levels, base);
}

function scope(levels: readonly Level[], dir: string): IgnoreScope {
  // Where this directory lies below each level, once: an entry is then only its name.
  const inside = dir.endsWith(sep) ? dir : `${dir}${sep}`;
  const below: { rules: IgnoreRules; rel: string }[] = [];
  for (const level of levels) {
    if (!inside.startsWith(level.prefix)) continue;
    const rel = inside.slice(level.prefix.length);
    below.push({ rules: level.rules, rel: sep === "/" ? rel : rel.split(sep).join("/") });
  }
  return {
    ignores(name, isDirectory) {
      // Deeper levels decide over shallower ones; within a level its last matching rule.
      let ignored = false;
      for (const { rules, rel } of below) {
        const verdict = rules.testIn(rel, name, isDirectory);
        if (verdict === "ignored") ignored = true;
        else if (verdict === "unignored") ignored = false;
      }
      return ignored;
    },
    enter(name, hasIgnoreFiles) {
      const child = childPath(dir, name);
      const own = hasIgnoreFiles ? rulesIn(child) : undefined;
      return scope(own === undefined ? levels : [...levels, level(child, own)], child);
    },
  };
}

/** `dir/name`, for a name read from `dir` (no `..`, no separator): cheaper than `join`. */
function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`;
}

/** Deeper levels decide over shallower ones; within a level its last matching rule. */
function isIgnored(levels: readonly Level[], path: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const level of levels) {
    // Each level's directory is an ancestor of `path`, so the relative path is a suffix.
    const prefix = level.prefix;
    if (!path.startsWith(prefix)) continue;
    const rel = path.slice(prefix.length);
    const posix = sep === "/" ? rel : rel.split(sep).join("/");
    const verdict = level.rules.test(posix, isDirectory);
    if (verdict === "ignored") ignored = true;
    else if (verdict === "unignored") ignored = false;
  }
  return ignored;
}

/** The directory's ignore files as one list: a later file's patterns win, like later lines. */
function rulesIn(dir: string): IgnoreRules | undefined {
  const texts = IGNORE_FILES.map((name) => readText(join(dir, name))).filter(
    (text) => text !== undefined,
  );
  return texts.length === 0 ? undefined : compileIgnoreFile(texts.join("\n"));
}

/** `.git/info/exclude` and the global excludes file, anchored at the repository root. */
function repositoryRules(repo: string, options: IgnoreOptions): IgnoreRules | undefined {
  const global = globalExcludes(options);
  const texts = [
    readText(join(repo, ".git", "info", "exclude")),
    global === undefined ? undefined : readText(global),
  ];
  const present = texts.filter((text) => text !== undefined);
  // The global file first: the repository's own exclude file wins over it.
  return present.length === 0 ? undefined : compileIgnoreFile(present.reverse().join("\n"));
}

/** `core.excludesFile` from ~/.gitconfig, else `$XDG_CONFIG_HOME/git/ignore`. */
function globalExcludes(options: IgnoreOptions): string | undefined {
  const { home } = options;
  if (home === undefined) return undefined;
  const configured = /^\s*excludesfile\s*=\s*(.+?)\s*$/im.exec(
    readText(join(home, ".gitconfig")) ?? "",
  )?.[1];
  if (configured !== undefined) {
    const path = configured.replace(/^"(.*)"$/, "$1");
    return path.startsWith("~/") ? join(home, path.slice(2)) : path;
  }
  return join(options.configHome ?? join(home, ".config"), "git", "ignore");
}

function isRepositoryRoot(dir: string): boolean {
  try {
    readFileSync(join(dir, ".git", "HEAD"));
    return true;
  } catch {
    // A worktree or submodule has a `.git` file instead of a directory.
    return readText(join(dir, ".git"))?.startsWith("gitdir:") === true;
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
