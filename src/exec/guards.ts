/**
 * What a sandbox must keep read-only or hidden, found by looking at the disk just before a
 * command runs: git's hooks and config (they run code the next time the user runs git),
 * dsh's own project config and state, and the usual credential stores under HOME.
 */
import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { InvalidInputError } from "../errors.ts";
import { credentialStores } from "../permission/credentials.ts";
import type { CredentialScope } from "../permission/credentials.ts";
import { hooksPathOf } from "../permission/git-hooks.ts";
import { mountAliases, readMountTable } from "./mount-aliases.ts";

/**
 * One protection inside the writable workspace.
 * - `pin`: a directory bound onto itself so it cannot be renamed or removed;
 * - `readonly`: an existing file or directory bound read-only onto itself;
 * - `block-dir` / `block-file`: a missing path covered by an empty read-only directory or
 *   `/dev/null`, so it cannot be created (the mount point is removed again afterwards);
 * - `forbid`: a missing path the sandbox cannot block without breaking git; the runner
 *   deletes it if a command creates it.
 */
export interface Guard {
  readonly type: "pin" | "readonly" | "block-dir" | "block-file" | "forbid";
  readonly path: string;
}

/** A credential store hidden from sandboxed commands: an empty directory or `/dev/null`. */
export interface Mask {
  readonly type: "dir" | "file";
  readonly path: string;
}

/** True when `path` is `root` or lies below it, comparing whole path segments. */
export function isWithin(root: string, path: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

/**
 * The protections for a realpath'd workspace under `workspace-write`. Paths outside the
 * workspace need none: the rest of the filesystem is read-only already. `protectedDirs`
 * (dsh's config directory) are kept read-only, or absent, like `.dsh`.
 */
export function workspaceGuards(
  workspace: string,
  stateDir: string,
  protectedDirs: readonly string[] = [],
): Guard[] {
  const guards: Guard[] = [];
  const add = (type: Guard["type"], path: string) => {
    if (isWithin(workspace, path) && !guards.some((guard) => guard.path === path)) {
      guards.push({ type, path });
    }
  };
  const dotGit = join(workspace, ".git");
  refuseSymlink(dotGit, workspace);
  refuseSymlink(join(workspace, ".dsh"), workspace);
  const gitStat = lstatOrUndefined(dotGit);
  let gitDir: string | undefined;
  if (gitStat === undefined) {
    // No repository yet: nothing may create one (a `.git` file could point git anywhere).
    add("block-dir", dotGit);
  } else if (gitStat.isFile()) {
    add("readonly", dotGit);
    gitDir = gitDirOfFile(dotGit);
  } else {
    gitDir = realpathOrUndefined(dotGit);
  }
  if (gitDir !== undefined) guardGitDir(gitDir, workspace, add);
  guardExisting(join(workspace, ".dsh"), "block-dir", add);
  guardExisting(resolve(stateDir), "block-dir", add);
  for (const dir of protectedDirs) guardExisting(resolve(dir), "block-dir", add);
  return guards;
}

/**
 * dsh's state directory holds every project's session transcripts: hidden behind an empty
 * read-only directory, unless the workspace lies inside it (hiding it would hide the work).
 */
export function stateDirMasks(stateDir: string, workspace: string): Mask[] {
  const real = realpathOrUndefined(resolve(stateDir));
  if (real === undefined || real === "/" || isWithin(real, workspace)) return [];
  return statOrUndefined(real)?.isDirectory() === true ? [{ type: "dir", path: real }] : [];
}

/**
 * The stores of the credential set that exist (a mount needs an existing mount point), each
 * hidden behind an empty directory or `/dev/null`: at its path, and wherever a bind mount or
 * a second mount of its file system shows the same inode (a path check alone misses a home
 * reached through another mount point).
 */
export function credentialMasks(scope: CredentialScope, mounts = readMountTable()): Mask[] {
  const masks: Mask[] = [];
  const add = (mask: Mask) => {
    if (!masks.some((known) => known.path === mask.path)) masks.push(mask);
  };
  for (const store of credentialStores(scope)) {
    const stat = existingStat(store.path);
    if (stat === undefined) continue;
    const type = stat.isDirectory() ? "dir" : "file";
    add({ type, path: store.path });
    const real = realpathOrUndefined(store.path);
    if (real === undefined) continue;
    for (const alias of mountAliases(real, mounts)) add({ type, path: alias });
  }
  return masks;
}

/** `stat` without an exception for a missing path: most stores do not exist, at every command. */
function existingStat(path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The stores of the credential set, existing or not (for rule-based sandboxes). */
export function credentialPaths(scope: CredentialScope): Mask[] {
  return credentialStores(scope).map((store) => ({ type: store.type, path: store.path }));
}

type AddGuard = (type: Guard["type"], path: string) => void;

function guardGitDir(gitDir: string, workspace: string, add: AddGuard): void {
  if (statOrUndefined(gitDir)?.isDirectory()) add("pin", gitDir);
  guardHooksAndConfig(gitDir, workspace, add);
  // Submodules' git directories: their configs and hooks run on the host's next git call too.
  const modules = join(gitDir, "modules");
  refuseSymlink(modules, workspace);
  if (lstatOrUndefined(modules)?.isDirectory()) add("readonly", modules);
  // `commondir` moves git's config and hooks elsewhere; a placeholder would break git.
  const commondir = join(gitDir, "commondir");
  guardExisting(commondir, "forbid", add);
  const common = readTrimmed(commondir);
  if (common !== undefined && common.length > 0) {
    const commonDir = realpathOrUndefined(resolve(gitDir, common));
    if (commonDir !== undefined) guardHooksAndConfig(commonDir, workspace, add);
  }
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

/** A bind mount of a symlink pins its target, not the link: the link could be swapped. */
function guardHooksAndConfig(gitDir: string, workspace: string, add: AddGuard): void {
  for (const [name, whenMissing] of [
    ["hooks", "block-dir"],
    ["config", "block-file"],
  ] as const) {
    const path = join(gitDir, name);
    refuseSymlink(path, workspace);
    guardExisting(path, whenMissing, add);
  }
  // A `core.hooksPath` inside the worktree (husky's `.husky`, say) holds hooks the host's next
  // commit runs: as protected as `.git/hooks`.
  const hooksPath = hooksPathOf(workspace, gitDir);
  if (hooksPath !== undefined) {
    refuseSymlink(hooksPath, workspace);
    guardExisting(hooksPath, "block-dir", add);
  }
}

/** Outside the workspace a link is read-only like everything else, so only links inside count. */
function refuseSymlink(path: string, workspace: string): void {
  if (!isWithin(workspace, path) || lstatOrUndefined(path)?.isSymbolicLink() !== true) return;
  throw new InvalidInputError(
    `${path} is a symlink; dsh cannot protect it; run with danger-full-access or replace the ` +
      "link with the directory or file it points to",
    { path },
  );
}

function guardExisting(path: string, whenMissing: Guard["type"], add: AddGuard): void {
  const real = realpathOrUndefined(path);
  if (real !== undefined) {
    add("readonly", real);
    return;
  }
  if (lstatOrUndefined(path) !== undefined) return;
  // Block the highest missing ancestor, so no parent directory appears on the host either.
  let top = path;
  while (lstatOrUndefined(dirname(top)) === undefined && dirname(top) !== top) top = dirname(top);
  add(top === path ? whenMissing : "block-dir", top);
}

/** The directory a `.git` file (`gitdir: PATH`) points to, realpath'd. */
function gitDirOfFile(dotGit: string): string | undefined {
  const match = /^gitdir:\s*(.+)$/m.exec(readTrimmed(dotGit) ?? "");
  const target = match?.[1]?.trim();
  if (target === undefined) return undefined;
  return realpathOrUndefined(isAbsolute(target) ? target : resolve(dirname(dotGit), target));
}

function readTrimmed(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
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

/** The realpath of `path`, or undefined when it does not exist. */
export function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
