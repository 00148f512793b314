/**
 * What a writable workspace must keep unwritable, found on disk just before each command:
 * every file git reads that can make it run a command (config files and what they include,
 * hook scripts, `commondir`, submodule and worktree git directories, every nested `.git`),
 * and dsh's own configuration and state when they lie in the workspace.
 *
 * A read-only bind pins an inode, not a name, so every directory between the workspace and a
 * protected path is bound onto itself too: a mount point cannot be renamed or removed. A
 * protected path that does not exist cannot be blocked without creating a mount point on the
 * host (which another dsh process could find or lose), so it is `forbid`den instead: the runner
 * removes it if a command created it. git's own directories that a command could fill
 * (`hooks`, `modules`, `worktrees`) are created empty instead, race-free and never removed.
 */
import { chownSync, lstatSync, mkdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { InvalidInputError } from "../errors.ts";
import {
  GIT_SEQUENCER_STATE,
  findRepository,
  gitControl,
  openGitDirectory,
  openRepository,
} from "../permission/git-repository.ts";
import type { GitUserConfig, Repository } from "../permission/git-repository.ts";
import { findGitEntries } from "./git-entries.ts";
import type { WalkOptions } from "./git-entries.ts";
import { protectProjectConfig } from "./project-config-guards.ts";
import type { MakePlaceholder } from "./project-config-guards.ts";
import type { Guard } from "./guards.ts";
import { isWithin, realpathOrUndefined } from "../paths.ts";

/** The guards of one command and the `.git` entries that existed before it. */
export interface WorkspaceProtection {
  /** Parents before children: the order bwrap must mount them in. */
  readonly guards: readonly Guard[];
  /** Realpaths of every `.git` entry in the workspace before the command (each nameable). */
  readonly gitEntries: readonly string[];
}

export interface WorkspaceGuardOptions {
  /** dsh's state directory. */
  readonly stateDir: string;
  /** dsh's configuration: directories and files no model write may change. */
  readonly protectedDirs?: readonly string[];
  /** Directories that must keep their names (credential stores' parents), pinned with ancestors. */
  readonly pinned?: readonly string[];
  /**
   * Guards protected project configuration (`.vscode/`, `.npmrc`, ...), making the missing
   * entries with this so that they can be bound read-only. Without it only `.dsh` is guarded
   * (forbidden when missing).
   */
  readonly placeholder?: MakePlaceholder;
  /** Where the user's git config lies. */
  readonly git: GitUserConfig;
  /** How the workspace is walked for `.git` entries (its listings kept between walks). */
  readonly walk: WalkOptions;
}

/**
 * The protections for a realpath'd workspace under `workspace-write`. Throws
 * `InvalidInputError` when one cannot be set up (a protected path reached through a symlink
 * inside the workspace, a `commondir` in the workspace's own `.git`, a tree too large to check).
 */
export function protectWorkspace(
  workspace: string,
  options: WorkspaceGuardOptions,
): WorkspaceProtection {
  const guards = new Map<string, Guard["type"]>();
  const add = (type: Guard["type"], path: string) => {
    if (path === workspace || !isWithin(workspace, path)) return;
    const known = guards.get(path);
    // `readonly` is a mount point too, so it covers a `pin`; `forbid` never meets either.
    if (known === undefined || (known === "pin" && type === "readonly")) guards.set(path, type);
  };
  const protect = (path: string) => protectPath(resolve(path), workspace, add);

  refuseRedirectedGit(workspace);
  const main = findRepository(workspace);
  if (main !== undefined) protectRepository(main, workspace, options.git, add, protect);
  // A workspace that is a git directory itself (a bare repository): git run there reads it.
  const bare = openGitDirectory(workspace);
  if (bare !== undefined) protectRepository(bare, workspace, options.git, add, protect);
  const gitEntries = findGitEntries(workspace, options.walk).map((entry) => entry.path);
  for (const entry of gitEntries) {
    if (entry === main?.dotGit) continue;
    const nested = openRepository(dirname(entry));
    // A nested `.git` directory is read-only whole (one mount, however many repositories are
    // vendored); a `.git` that leads nowhere stays so. A `gitdir:` file is read-only, and so
    // are the control files of the git directory it names.
    protect(entry);
    if (nested === undefined) continue;
    if (lstatOrUndefined(entry)?.isFile() === true) {
      protectRepository(nested, workspace, options.git, add, protect);
    } else {
      // Its config may include files, and name hooks, outside its `.git`.
      const control = gitControl(nested, options.git);
      for (const path of [...control.configFiles, ...control.hookDirs]) protect(path);
    }
  }
  if (options.placeholder === undefined) protect(join(workspace, ".dsh"));
  else {
    const nestedRoots = gitEntries.filter((entry) => entry !== main?.dotGit).map(dirname);
    protectProjectConfig(workspace, nestedRoots, protect, options.placeholder);
  }
  // dsh keeps its state there anyway; made now, it is read-only rather than forbidden.
  if (isWithin(workspace, resolve(options.stateDir))) {
    refuseLinkOnTheWay(resolve(options.stateDir), workspace);
    mkdirSync(options.stateDir, { recursive: true });
  }
  protect(options.stateDir);
  for (const path of options.protectedDirs ?? []) protect(path);
  for (const dir of options.pinned ?? []) pinWithAncestors(dir, workspace, add);

  const readOnly = [...guards].filter(([, type]) => type === "readonly").map(([path]) => path);
  const ordered = [...guards]
    .map(([path, type]) => ({ type, path }))
    // A pin is a writable bind: below a read-only one it would open what that one closed (and
    // nothing there can be renamed anyway).
    .filter((guard) => guard.type !== "pin" || !readOnly.some((dir) => isWithin(dir, guard.path)))
    .sort((a, b) => depth(a.path) - depth(b.path) || a.path.localeCompare(b.path));
  return { guards: ordered, gitEntries };
}

/**
 * Throws when the workspace's own `.git` directory has a `commondir`: git never writes one
 * there, so a sandboxed command did and dsh could not remove it, and the host's next git call
 * would take its config and hooks from wherever it points. Runs for every sandboxed mode.
 */
export function refuseRedirectedGit(workspace: string): void {
  const commondir = join(workspace, ".git", "commondir");
  if (lstatOrUndefined(join(workspace, ".git"))?.isDirectory() !== true) return;
  if (lstatOrUndefined(commondir) === undefined) return;
  throw new InvalidInputError(
    `${commondir} exists: it makes git take its config and hooks from elsewhere, and git never ` +
      `creates it in a repository's own .git directory; check where it points, remove it ` +
      `(rm ${commondir}, after chmod u+w on .git if needed), then run the command again`,
    { path: commondir },
  );
}

type AddGuard = (type: Guard["type"], path: string) => void;

/** The hooks git runs (githooks(5)), for a hooks directory that cannot be protected whole. */
const GIT_HOOKS = [
  "applypatch-msg",
  "pre-applypatch",
  "post-applypatch",
  "pre-commit",
  "pre-merge-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "pre-rebase",
  "post-checkout",
  "post-merge",
  "pre-push",
  "pre-receive",
  "update",
  "proc-receive",
  "post-receive",
  "post-update",
  "reference-transaction",
  "push-to-checkout",
  "pre-auto-gc",
  "post-rewrite",
  "sendemail-validate",
  "fsmonitor-watchman",
  "p4-changelist",
  "p4-prepare-changelist",
  "p4-post-changelist",
  "p4-pre-submit",
  "post-index-change",
];

function protectRepository(
  repo: Repository,
  workspace: string,
  user: GitUserConfig,
  add: AddGuard,
  protect: (path: string) => void,
): void {
  // A `gitdir:` file is read-only; a `.git` directory is pinned with the git directory below.
  if (lstatOrUndefined(repo.dotGit)?.isFile() === true) protect(repo.dotGit);
  // The git directories themselves stay writable (git needs its index, objects and refs), but
  // pinned, so that they cannot be swapped for planted ones.
  for (const dir of [repo.gitDir, repo.commonDir]) pinWithAncestors(dir, workspace, add);
  for (const name of ["hooks", "modules", "worktrees"]) {
    ensureDirectory(join(repo.commonDir, name), workspace);
  }
  for (const name of ["hooks", "modules", "worktrees", "config", "commondir"]) {
    protect(join(repo.commonDir, name));
  }
  for (const name of ["config", "config.worktree", "commondir", ...GIT_SEQUENCER_STATE]) {
    protect(join(repo.gitDir, name));
  }
  const control = gitControl(repo, user);
  for (const path of control.configFiles) protect(path);
  for (const dir of control.hookDirs) {
    // Hooks in the workspace itself or above it (`core.hooksPath = .`): the hooks, not the
    // directory, or nothing would be writable.
    if (isWithin(dir, workspace)) for (const name of GIT_HOOKS) protect(join(dir, name));
    else protect(dir);
  }
}

/**
 * Guards one path: read-only when it exists (with every ancestor in the workspace pinned),
 * `forbid` on its highest missing ancestor when it does not. Throws when a symlink inside the
 * workspace leads to it (the link itself could be swapped).
 */
function protectPath(path: string, workspace: string, add: AddGuard): void {
  refuseLinkOnTheWay(path, workspace);
  const real = realpathOrUndefined(path);
  if (real !== undefined) {
    if (!isWithin(workspace, real)) return;
    add("readonly", real);
    pinWithAncestors(dirname(real), workspace, add);
    return;
  }
  // Only the path itself: a command may make its parents for other reasons.
  if (isWithin(workspace, path)) add("forbid", path);
}

/** Pins `dir` and each directory between it and the workspace. */
function pinWithAncestors(dir: string, workspace: string, add: AddGuard): void {
  for (let current = dir; isWithin(workspace, current) && current !== workspace; ) {
    if (statOrUndefined(current)?.isDirectory() === true) add("pin", current);
    current = dirname(current);
  }
}

/** A bind mount follows a link, so a protected path reached through one is unprotectable. */
function refuseLinkOnTheWay(path: string, workspace: string): void {
  if (!isWithin(workspace, path)) return;
  const parts = relative(workspace, path).split(sep);
  for (let i = 1; i <= parts.length; i++) {
    const step = join(workspace, ...parts.slice(0, i));
    const stat = lstatOrUndefined(step);
    if (stat === undefined) return;
    if (!stat.isSymbolicLink()) continue;
    throw new InvalidInputError(
      `${step} is a symlink; dsh cannot protect it; run with danger-full-access or replace the ` +
        "link with the directory or file it points to",
      { path: step },
    );
  }
}

/** Creates one of git's own directories, owned like its parent, when the parent exists. */
function ensureDirectory(path: string, workspace: string): void {
  if (!isWithin(workspace, path) || lstatOrUndefined(path) !== undefined) return;
  const parent = statOrUndefined(dirname(path));
  if (parent?.isDirectory() !== true) return;
  try {
    mkdirSync(path);
    if (process.getuid?.() === 0) chownSync(path, parent.uid, parent.gid);
  } catch {
    // Another process made it first, or the parent is not ours to write: either way the path
    // is then guarded as it is.
  }
}

function depth(path: string): number {
  return path.split(sep).length;
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
