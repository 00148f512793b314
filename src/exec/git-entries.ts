/**
 * Every `.git` entry (directory, `gitdir:` file or link) under a workspace. git enters any of
 * them (a gitlink in the index, an editor that lists nested repositories) and runs what their
 * config names, so the sandbox protects the ones that exist before a command and removes the
 * ones a command created. The walk is bounded: past its limits it throws, and the caller
 * refuses the command rather than trust a tree it could not check.
 */
import { accessSync, constants, lstatSync, readdirSync } from "node:fs";
import type { Dirent } from "node:fs";
import { join } from "node:path";
import { InvalidInputError } from "../errors.ts";

/** How much of a workspace one walk may visit. */
export interface WalkLimits {
  readonly entries: number;
  readonly ms: number;
}

const DEFAULT_WALK_LIMITS: WalkLimits = { entries: 1_000_000, ms: 5_000 };

/** Thrown when a workspace is too large to check within the walk's limits. */
export class WorkspaceTooLargeError extends InvalidInputError {}

/** Thrown for a directory in the workspace that can be written but not listed. */
export class WorkspaceUncheckableError extends InvalidInputError {}

/**
 * Directory listings of one workspace that its next walk may reuse: a directory whose inode
 * and change time are those it had when listed still holds the same names (adding, removing or renaming an entry changes
 * the change time, and no command can set it back). A listing made within two seconds of a
 * change is not kept, since a second change in the same clock tick could leave the time as is.
 */
export type GitEntryCache = Map<string, CachedListing>;

interface CachedListing {
  readonly ino: bigint;
  readonly ctimeNs: bigint;
  readonly subdirs: readonly string[];
  readonly gitEntries: readonly string[];
  readonly size: number;
}

/** Listings younger than this are not reused. */
const SETTLE_NS = 2_000_000_000n;

/**
 * The paths of all `.git` entries below `workspace` (itself included), without descending
 * into them or following links, sorted. A directory dsh cannot read is skipped when commands
 * (which run as the same user) cannot write into it either. Throws `WorkspaceTooLargeError`
 * past `limits`, and `WorkspaceUncheckableError` for a directory writable but not readable
 * (a command could hide a repository there).
 */
export function findGitEntries(
  workspace: string,
  limits: WalkLimits = DEFAULT_WALK_LIMITS,
  cache: GitEntryCache = new Map(),
): string[] {
  const deadline = performance.now() + limits.ms;
  const settled = BigInt(Date.now()) * 1_000_000n - SETTLE_NS;
  const found: string[] = [];
  const pending = [workspace];
  // Only what this walk saw is kept, so directories that are gone do not pile up.
  const kept: GitEntryCache = new Map();
  let visited = 0;
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const listing = listDirectory(dir, cache, kept, settled);
    if (listing === undefined) continue;
    visited += listing.size;
    if (visited > limits.entries || performance.now() > deadline) {
      throw new WorkspaceTooLargeError(
        `${workspace} holds more than dsh can check for git repositories before and after a ` +
          `sandboxed command (${limits.entries} entries or ${limits.ms} ms); open a smaller ` +
          "directory as the project, or choose danger-full-access",
        { workspace },
      );
    }
    found.push(...listing.gitEntries);
    pending.push(...listing.subdirs);
  }
  cache.clear();
  for (const [dir, listing] of kept) cache.set(dir, listing);
  return found.sort();
}

function listDirectory(
  dir: string,
  cache: GitEntryCache,
  kept: GitEntryCache,
  settled: bigint,
): CachedListing | undefined {
  const stat = lstatSync(dir, { bigint: true, throwIfNoEntry: false });
  if (stat === undefined || !stat.isDirectory()) return undefined;
  const cached = cache.get(dir);
  if (cached !== undefined && cached.ino === stat.ino && cached.ctimeNs === stat.ctimeNs) {
    kept.set(dir, cached);
    return cached;
  }
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if (writable(dir)) {
      throw new WorkspaceUncheckableError(
        `${dir} can be written but not listed, so dsh cannot check it for git repositories ` +
          `(${error instanceof Error ? error.message : String(error)}); make it readable ` +
          `(chmod u+r ${dir}) or remove it, then run the command again`,
        { path: dir },
      );
    }
    return undefined;
  }
  const subdirs: string[] = [];
  const gitEntries: string[] = [];
  for (const entry of entries) {
    if (entry.name === ".git") gitEntries.push(join(dir, entry.name));
    else if (entry.isDirectory()) subdirs.push(join(dir, entry.name));
  }
  const listing = {
    ino: stat.ino,
    ctimeNs: stat.ctimeNs,
    subdirs,
    gitEntries,
    size: entries.length,
  };
  if (stat.ctimeNs < settled) kept.set(dir, listing);
  return listing;
}

/** Whether this process (and so a sandboxed command, which runs as the same user) may add entries. */
function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
