/**
 * What git inside the sandbox ignores while placeholders stand in the session's directories:
 * the user's own excludes file, plus each placeholder. An empty placeholder file is otherwise an
 * untracked file to git, and a command's `git add -A` would stage and commit files the
 * project does not have once the command ended.
 */
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { findRepository, gitExcludesFile } from "../permission/git-repository.ts";
import type { GitUserConfig, Repository } from "../permission/git-repository.ts";
import type { Placeholder } from "./placeholders.ts";

/** Where the excludes are shown inside the sandbox's private `/tmp`. */
export const SANDBOX_EXCLUDES = "/tmp/.dsh-git-excludes";

/** The user's excludes file is read up to this size; git itself reads whole files. */
const MAX_USER_EXCLUDES = 1024 * 1024;

/** The placeholders standing in one of the session's directories. */
export interface RootPlaceholders {
  /** The directory (a realpath): the cwd, or an added one. */
  readonly root: string;
  readonly placeholders: readonly Placeholder[];
}

/** What the sandbox needs for git to ignore the placeholders of every directory. */
export interface SandboxExcludes {
  /** Files for the sandbox's `/tmp`: their text and where they are shown. */
  readonly files: readonly { readonly text: string; readonly dest: string }[];
  /** The config git reads from the environment, in order (the last value wins). */
  readonly config: readonly (readonly [key: string, value: string])[];
}

/**
 * The excludes for git in the session's directories, one file per repository that holds some
 * (the first directory's also where git finds no repository). `core.excludesFile` names a
 * single file for every repository, so the first directory's is the default and each other
 * repository's is chosen by `includeIf.gitdir`, the way git picks a config by repository.
 * Undefined when no placeholder stands. Reads the user's config and excludes files.
 */
export function sandboxExcludes(
  roots: readonly RootPlaceholders[],
  user: GitUserConfig,
): SandboxExcludes | undefined {
  const groups = new Map<
    string,
    { top: string; repo: Repository | undefined; all: Placeholder[] }
  >();
  let defaultKey: string | undefined;
  roots.forEach(({ root, placeholders }, i) => {
    if (placeholders.length === 0) return;
    const repo = findRepository(root);
    // Outside a repository, a `git init` there makes `<root>/.git`.
    const key = repo?.gitDir ?? join(root, ".git");
    if (i === 0) defaultKey = key;
    const group = groups.get(key) ?? { top: repo?.worktree ?? root, repo, all: [] };
    group.all.push(...placeholders);
    groups.set(key, group);
  });
  const files: { text: string; dest: string }[] = [];
  const config: [string, string][] = [];
  let n = 0;
  for (const [gitDir, group] of groups) {
    const text = excludesText(group.top, group.all, gitExcludesFile(group.repo, user));
    if (gitDir === defaultKey) {
      files.push({ text, dest: SANDBOX_EXCLUDES });
      config.unshift(["core.excludesFile", SANDBOX_EXCLUDES]);
      continue;
    }
    // git refuses a config key that holds a newline, and would then run no command at all.
    if (gitDir.includes("\n")) continue;
    const excludes = `${SANDBOX_EXCLUDES}-${++n}`;
    const include = `/tmp/.dsh-git-config-${n}`;
    files.push(
      { text, dest: excludes },
      { text: `[core]\n\texcludesFile = ${excludes}\n`, dest: include },
    );
    config.push([`includeIf.gitdir:${escapeGlob(gitDir)}.path`, include]);
  }
  return files.length === 0 ? undefined : { files, config };
}

/**
 * The excludes for git in `workspace`: the text of the user's excludes file (as git would
 * find it) followed by one anchored pattern per placeholder, relative to the repository's
 * top (or the workspace's, outside one). Reads the user's config and excludes file.
 */
export function placeholderExcludes(
  workspace: string,
  placeholders: readonly Placeholder[],
  user: GitUserConfig,
): string {
  const repo = findRepository(workspace);
  return excludesText(repo?.worktree ?? workspace, placeholders, gitExcludesFile(repo, user));
}

function excludesText(top: string, placeholders: readonly Placeholder[], userFile: string): string {
  const own = readBounded(userFile);
  const patterns = placeholders.map((placeholder) => {
    const parts = relative(top, placeholder.path).split(sep).map(escapePattern);
    return `/${parts.join("/")}${placeholder.type === "dir" ? "/" : ""}`;
  });
  const separator = own === "" || own.endsWith("\n") ? "" : "\n";
  return `${own}${separator}# dsh: placeholders of protected project configuration\n${patterns.join("\n")}\n`;
}

/**
 * The variables that give git `config`, after any `GIT_CONFIG_*` pairs `env` already holds
 * (git reads them in order; the last value wins).
 */
export function excludesEnv(
  env: Readonly<Record<string, string>>,
  config: readonly (readonly [string, string])[],
): Record<string, string> {
  const count = Number.parseInt(env.GIT_CONFIG_COUNT ?? "0", 10);
  const index = Number.isSafeInteger(count) && count > 0 ? count : 0;
  const vars: Record<string, string> = { GIT_CONFIG_COUNT: String(index + config.length) };
  config.forEach(([key, value], i) => {
    vars[`GIT_CONFIG_KEY_${index + i}`] = key;
    vars[`GIT_CONFIG_VALUE_${index + i}`] = value;
  });
  return vars;
}

/** A path as a literal pattern for `includeIf.gitdir` (git's wildmatch). */
function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]]/g, "\\$&");
}

/** A name as a literal gitignore pattern component (the pattern starts with `/`). */
function escapePattern(name: string): string {
  return name.replace(/[\\*?[\]]/g, "\\$&").replace(/ +$/, (spaces) => spaces.replace(/ /g, "\\ "));
}

function readBounded(file: string): string {
  try {
    return readFileSync(file, "utf8").slice(0, MAX_USER_EXCLUDES);
  } catch {
    return "";
  }
}
