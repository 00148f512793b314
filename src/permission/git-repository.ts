/**
 * The git repository that contains a directory, and the files git reads that can make it run
 * a command: its config files (with everything they include) and its hook scripts. The command
 * sandbox keeps these unwritable, the file tools refuse them, and AGENTS.md discovery stops at
 * the same repository root.
 */
import { lstatSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { realpathOrUndefined } from "../paths.ts";
import { readConfigChain, valuesOf } from "./git-config.ts";

/** A repository found from a directory inside its worktree. */
export interface Repository {
  /** The worktree root: the directory that holds `.git`. */
  readonly worktree: string;
  /** `<worktree>/.git`: a directory, or a file saying `gitdir: <path>`. */
  readonly dotGit: string;
  /** The realpath of the repository's git directory. */
  readonly gitDir: string;
  /** Where the shared config and hooks live: `gitDir`, or the directory its `commondir` names. */
  readonly commonDir: string;
}

/** The files through which git can be made to run something, for one repository. */
export interface GitControl {
  /** Config files git reads for the repository (existing or not), includes followed. */
  readonly configFiles: readonly string[];
  /** Directories holding hook scripts: each hooks directory and, for husky, its parent. */
  readonly hookDirs: readonly string[];
}

/** Where the user's own git config lies: home, `XDG_CONFIG_HOME`, `GIT_CONFIG_GLOBAL`. */
export interface GitUserConfig {
  readonly home: string;
  readonly xdgConfigHome?: string;
  readonly globalConfig?: string;
}

/**
 * The nearest repository at `dir` or above it: the first ancestor whose `.git` (a directory
 * or a `gitdir:` file) leads to a git directory, as git's own discovery does. Undefined
 * outside any repository.
 */
export function findRepository(dir: string): Repository | undefined {
  let current = resolve(dir);
  for (;;) {
    const found = openRepository(current);
    if (found !== undefined) return found;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/** The repository whose worktree root is `worktree`, or undefined when `.git` leads nowhere. */
export function openRepository(worktree: string): Repository | undefined {
  const dotGit = join(worktree, ".git");
  const gitDir = gitDirOf(dotGit);
  if (gitDir === undefined || !isFile(join(gitDir, "HEAD"))) return undefined;
  return { worktree, dotGit, gitDir, commonDir: commonDirOf(gitDir) };
}

/**
 * The repository whose git directory is `dir` itself (a bare repository, or a session opened
 * inside a `.git`), as git finds one when run there; undefined when `dir` is not one.
 */
export function openGitDirectory(dir: string): Repository | undefined {
  if (!isFile(join(dir, "HEAD")) || !isDirectory(join(dir, "objects"))) return undefined;
  const gitDir = realpathOrUndefined(dir);
  if (gitDir === undefined) return undefined;
  return { worktree: gitDir, dotGit: gitDir, gitDir, commonDir: commonDirOf(gitDir) };
}

/** The realpath of the git directory a `.git` entry leads to (directly or by `gitdir:`). */
function gitDirOf(dotGit: string): string | undefined {
  const stat = lstatOrUndefined(dotGit);
  if (stat === undefined) return undefined;
  if (!stat.isFile()) return isDirectory(dotGit) ? realpathOrUndefined(dotGit) : undefined;
  const target = /^gitdir:\s*(.+)$/m.exec(readOrEmpty(dotGit))?.[1]?.trim();
  if (target === undefined || target === "") return undefined;
  const path = isAbsolute(target) ? target : resolve(dirname(dotGit), target);
  return isDirectory(path) ? realpathOrUndefined(path) : undefined;
}

/** The directory `gitDir/commondir` names (linked worktrees, submodules), else `gitDir`. */
function commonDirOf(gitDir: string): string {
  const named = readOrEmpty(join(gitDir, "commondir")).trim();
  if (named === "") return gitDir;
  return realpathOrUndefined(resolve(gitDir, named)) ?? resolve(gitDir, named);
}

/** The system's and the user's config files, in git's order. */
function userConfigFiles(user: GitUserConfig): string[] {
  if (user.globalConfig !== undefined && user.globalConfig !== "") {
    return ["/etc/gitconfig", user.globalConfig];
  }
  const xdg = user.xdgConfigHome || join(user.home, ".config");
  return ["/etc/gitconfig", join(xdg, "git", "config"), join(user.home, ".gitconfig")];
}

/**
 * The config files and hook directories of `repo`. Conditional includes count as taken and
 * every `core.hooksPath` value counts, so the result covers whatever git would pick.
 */
export function gitControl(repo: Repository, user: GitUserConfig): GitControl {
  const chain = readConfigChain(
    [
      ...userConfigFiles(user),
      join(repo.commonDir, "config"),
      join(repo.gitDir, "config.worktree"),
    ],
    user.home,
  );
  const hookDirs = [join(repo.commonDir, "hooks")];
  for (const value of valuesOf(chain, "core", "hookspath")) {
    if (typeof value !== "string" || value === "") continue;
    const expanded =
      value === "~" || value.startsWith("~/") ? join(user.home, value.slice(1)) : value;
    const dir = isAbsolute(expanded) ? expanded : resolve(repo.worktree, expanded);
    hookDirs.push(dir);
    // husky (v9): `core.hooksPath=.husky/_` holds wrappers that run `.husky/<hook>`.
    if (basename(dir) === "_") hookDirs.push(dirname(dir));
  }
  return { configFiles: chain.files, hookDirs: [...new Set(hookDirs)] };
}

/**
 * The excludes file git reads for `repo` (or, outside any repository, for a new one): the
 * last `core.excludesFile` of the user's and the repository's config, `~` expanded, else
 * `$XDG_CONFIG_HOME/git/ignore` (`~/.config/git/ignore`).
 */
export function gitExcludesFile(repo: Repository | undefined, user: GitUserConfig): string {
  const files = userConfigFiles(user);
  if (repo !== undefined) {
    files.push(join(repo.commonDir, "config"), join(repo.gitDir, "config.worktree"));
  }
  const chain = readConfigChain(files, user.home);
  const named = valuesOf(chain, "core", "excludesfile").findLast(
    (value): value is string => typeof value === "string" && value !== "",
  );
  if (named !== undefined) {
    const expanded =
      named === "~" || named.startsWith("~/") ? join(user.home, named.slice(1)) : named;
    return isAbsolute(expanded) ? expanded : resolve(repo?.worktree ?? user.home, expanded);
  }
  return join(user.xdgConfigHome || join(user.home, ".config"), "git", "ignore");
}

/**
 * Paths no model write may change in the repository containing `dir` (and in `dir` itself
 * when it is a git directory): hook directories and config files, includes followed. Empty
 * outside a repository.
 */
export function gitWriteProtections(dir: string, user: GitUserConfig): string[] {
  const paths: string[] = [];
  for (const repo of [findRepository(dir), openGitDirectory(dir)]) {
    if (repo === undefined) continue;
    const control = gitControl(repo, user);
    paths.push(...control.hookDirs, ...control.configFiles);
  }
  return [...new Set(paths)];
}

/**
 * A rebase, cherry-pick or revert in progress: its todo list (an `exec` line runs a command)
 * waits in the git directory for the next `git rebase --continue` or `git cherry-pick
 * --continue`.
 */
export const GIT_SEQUENCER_STATE: readonly string[] = ["rebase-merge", "rebase-apply", "sequencer"];

/**
 * Everything of the repository containing `dir` that git reads to decide what to run, for
 * sandboxes whose rules are paths: `gitWriteProtections` plus the git directories'
 * `commondir`, `config.worktree`, `modules`, `worktrees` and sequencer state.
 */
export function gitControlPaths(dir: string, user: GitUserConfig): string[] {
  const repo = findRepository(dir);
  if (repo === undefined) return [];
  const control = gitControl(repo, user);
  return [
    ...new Set([
      ...control.hookDirs,
      ...control.configFiles,
      join(repo.gitDir, "commondir"),
      join(repo.gitDir, "config.worktree"),
      join(repo.commonDir, "modules"),
      join(repo.commonDir, "worktrees"),
      ...GIT_SEQUENCER_STATE.map((name) => join(repo.gitDir, name)),
    ]),
  ];
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
