/**
 * Every `.git` entry (directory, `gitdir:` file or link) under a workspace. git enters any of
 * them (a gitlink in the index, an editor that lists nested repositories) and runs what their
 * config names, so the sandbox protects the ones that exist before a command and removes the
 * ones a command created.
 *
 * The walk holds directories by descriptor and enters them one name at a time, never through a
 * link (`dir-calls.ts`): names are bytes, whatever their encoding, and no depth is too deep.
 * It is bounded (entries, time). What it could not check is part of its result, beside what it
 * found; before a command that refuses the command, after one the caller fails closed.
 *
 * Where a directory looks names up without regard to case (APFS and HFS+ by default, NTFS, an
 * ext4 directory with casefold), `.GIT` or `.Git` is what git opens as `.git`, and on HFS+ so
 * is `.git` with code points HFS+ ignores in it. Such a name is a `.git` entry when looking up
 * `.git` in its directory finds that very entry: the directory's own behaviour decides, never
 * the platform.
 */
import { InvalidInputError } from "../errors.ts";
import { bytePath } from "./byte-paths.ts";
import type { BytePath } from "./byte-paths.ts";
import { EntryType, isDirectoryMode } from "./dir-calls.ts";
import type { DirCalls, EntryStat } from "./dir-calls.ts";
import { DirStack } from "./dir-stack.ts";
import type { DirWatch } from "./dir-watch.ts";
import { DEFAULT_WALK_LIMITS, type WalkLimits } from "./walk-limits.ts";

export { DEFAULT_WALK_LIMITS, type WalkLimits } from "./walk-limits.ts";

/** What one walk needs: the calls, its bounds, the listings kept from the last walk. */
export interface WalkOptions {
  readonly calls: DirCalls;
  readonly limits?: WalkLimits;
  readonly cache?: GitEntryCache;
  /** Descriptors the walk keeps open at most (`OPEN_DIRS` when absent). */
  readonly openDirs?: number;
  /** The wall clock in ms, which decides which listings are old enough to keep (`Date.now`). */
  readonly clock?: () => number;
  /**
   * The watch of this workspace's directories (`dir-watch.ts`), made at the first walk from its
   * open root: a listing it has seen no change to since it was made is reused without a look at
   * the directory, and so is a whole subtree of them.
   */
  readonly watch?: (rootFd: number, rootDev: bigint) => DirWatch | undefined;
}

/** Thrown when a workspace is too large to check within the walk's limits. */
export class WorkspaceTooLargeError extends InvalidInputError {}

/** Thrown for a part of the workspace a command could change but dsh cannot check or protect. */
export class WorkspaceUncheckableError extends InvalidInputError {}

/**
 * A part of the workspace the walk could not check, and why: it stopped at its `limits`, or
 * because directories `moved` under it (the rest of the tree is unchecked), or it could not
 * list one directory (`unlistable`) and went on without it.
 */
export interface Unchecked {
  readonly kind: "limits" | "moved" | "unlistable";
  readonly path: string;
  readonly reason: string;
}

/** The outcome of one walk: the `.git` entries found, sorted, and what it could not check. */
export interface GitWalk {
  readonly entries: readonly BytePath[];
  readonly unchecked: readonly Unchecked[];
}

/**
 * Directory listings of one workspace that its next walk may reuse, by device and inode, in
 * two ways:
 *
 * - `trusted`: the directory has been watched since before it was listed and its watch has
 *   reported no change of names since. Then so are the keys of its subdirectories kept beside
 *   the names (nothing can put another directory under a name without a change of names), and
 *   a subtree of trusted listings is taken in without a system call.
 * - `settled`: a directory whose change time is the one it had when listed still holds the
 *   same names (adding, removing or renaming an entry changes the change time, and no command
 *   can set it back). A listing made within two seconds of a change is not settled, since a
 *   second change in the same clock tick could leave the time as is.
 *
 * A listing that is neither is not kept.
 */
export type GitEntryCache = Map<bigint, CachedListing>;

interface CachedListing {
  readonly ctimeNs: bigint;
  /** Names of the entries that are (or may be) directories, `.git` aside, sorted. */
  readonly subdirs: readonly Uint8Array[];
  /** The name (NUL-ended) of the entry that git opens as `.git` here, if any. */
  readonly git: Uint8Array | undefined;
  readonly size: number;
  readonly settled: boolean;
  trusted: boolean;
  /**
   * What each of `subdirs` was when this walk or a later one looked, while `trusted`: its key
   * when a directory, null when not one, undefined when not known.
   */
  children: (bigint | null | undefined)[];
}

/** A directory of a trusted subtree, by its name and its parent's. */
interface Named {
  readonly key: bigint;
  readonly name: Uint8Array;
  readonly up: Named | undefined;
}

function namesOf(named: Named): Uint8Array[] {
  const names: Uint8Array[] = [];
  for (let at: Named | undefined = named; at !== undefined; at = at.up) names.push(at.name);
  return names.reverse();
}

/** Listings younger than this are not reused. */
const SETTLE_NS = 2_000_000_000n;
const GIT = new Uint8Array([0x2e, 0x67, 0x69, 0x74, 0]);

interface Frame {
  fd: number;
  readonly dev: bigint;
  readonly ino: bigint;
  readonly name: Uint8Array;
  readonly listing: CachedListing;
  next: number;
}

/** One walk's state, shared by its steps. */
interface Walk {
  readonly workspace: string;
  readonly calls: DirCalls;
  readonly limits: WalkLimits;
  /** The listings of the last walk. */
  readonly cache: GitEntryCache;
  /** Only what this walk saw is kept, so directories that are gone do not pile up. */
  readonly kept: GitEntryCache;
  readonly found: BytePath[];
  readonly unchecked: Unchecked[];
  readonly stack: DirStack<Frame>;
  readonly deadline: number;
  /** Listings of directories whose change time is before this (ns) are settled. */
  readonly settled: bigint;
  /** Whether the subtree at a key is trusted whole (`GitEntryCache`); remembered per walk. */
  readonly clean: Map<bigint, boolean>;
  watch: DirWatch | undefined;
  visited: number;
}

/**
 * Walks `workspace` (a realpath) for `.git` entries without descending into them or following
 * links. A directory dsh cannot list is skipped when no command could change it (another
 * user's, not writable), and unchecked otherwise. Never throws.
 */
export function walkGitEntries(workspace: string, options: WalkOptions): GitWalk {
  const { calls } = options;
  const limits = options.limits ?? DEFAULT_WALK_LIMITS;
  const walk: Walk = {
    workspace,
    calls,
    limits,
    cache: options.cache ?? new Map(),
    kept: new Map(),
    found: [],
    unchecked: [],
    stack: new DirStack<Frame>(calls, options.openDirs),
    deadline: performance.now() + limits.ms,
    settled: BigInt(Math.floor((options.clock ?? Date.now)())) * 1_000_000n - SETTLE_NS,
    clean: new Map(),
    watch: undefined,
    visited: 0,
  };
  const root = openRoot(calls, workspace);
  if (typeof root !== "string") {
    walk.watch = options.watch?.(root.fd, root.stat.dev);
    const changed = distrustChanged(walk.cache, walk.watch);
    const same = changed ? undefined : unchangedWalk(walk, (root.stat.dev << 64n) | root.stat.ino);
    if (same !== undefined) {
      calls.close(root.fd);
      return same;
    }
    if (changed) wholeWalks.delete(walk.cache);
  }
  const rootListing = typeof root === "string" ? root : listingOf(walk, root.fd, root.stat);
  if (typeof root === "string" || typeof rootListing === "string") {
    if (typeof root !== "string") calls.close(root.fd);
    const reason = `it cannot be listed (${rootListing})`;
    return { entries: [], unchecked: [{ kind: "unlistable", path: workspace, reason }] };
  }
  const { dev, ino } = root.stat;
  const { stack } = walk;
  stack.push({ fd: root.fd, dev, ino, name: new Uint8Array(), listing: rootListing, next: 0 });
  if (!account(walk, rootListing)) stack.dispose();
  for (let top = stack.top; top !== undefined; top = stack.top) {
    const index = top.next++;
    const name = top.listing.subdirs[index];
    if (name !== undefined) {
      visitEntry(walk, top, index, name);
    } else if (!stack.pop()) {
      const reason = "directories were moved while dsh walked them";
      walk.unchecked.push({ kind: "moved", path: workspace, reason });
    }
  }
  const { cache, kept, found } = walk;
  cache.clear();
  for (const [key, listing] of kept) cache.set(key, listing);
  walk.watch?.keepOnly(new Set(kept.keys()));
  found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  rememberWhole(walk, (dev << 64n) | ino);
  return { entries: found, unchecked: walk.unchecked };
}

/**
 * The last walk of a workspace whose every listing was watched, trusted and had each child
 * known, with nothing unchecked: while its watch reports no change at all, the next walk would
 * find exactly what it found (names, `.git` entries included, change only through changes the
 * watch reports), so it is its result, with no look at any directory.
 */
interface WholeWalk {
  readonly root: bigint;
  readonly watch: DirWatch;
  readonly entries: readonly BytePath[];
  readonly visited: number;
}

const wholeWalks = new WeakMap<GitEntryCache, WholeWalk>();

/** The last walk's result, where nothing changed since it and it was whole (`WholeWalk`). */
function unchangedWalk(walk: Walk, rootKey: bigint): GitWalk | undefined {
  const last = wholeWalks.get(walk.cache);
  const { watch } = walk;
  if (last === undefined || watch === undefined || last.watch !== watch) return undefined;
  if (last.root !== rootKey || last.visited > walk.limits.entries) return undefined;
  if (walk.cache.get(rootKey)?.trusted !== true || !watch.watching(rootKey)) return undefined;
  return { entries: [...last.entries], unchecked: [] };
}

/** Keeps this walk's result for the next walk when it was whole, else forgets the last one. */
function rememberWhole(walk: Walk, rootKey: bigint): void {
  const { watch, kept, cache } = walk;
  const whole =
    watch !== undefined &&
    walk.unchecked.length === 0 &&
    kept.has(rootKey) &&
    [...kept].every(([key, listing]) => wholeListing(listing, kept) && watch.watching(key));
  if (!whole) {
    wholeWalks.delete(cache);
    return;
  }
  wholeWalks.set(cache, { root: rootKey, watch, entries: [...walk.found], visited: walk.visited });
}

/** Trusted, each child known, and each child directory listed in this walk too. */
function wholeListing(listing: CachedListing, kept: ReadonlyMap<bigint, CachedListing>): boolean {
  if (!listing.trusted || listing.children.length !== listing.subdirs.length) return false;
  for (let i = 0; i < listing.children.length; i++) {
    const child = listing.children[i];
    if (child === undefined || (child !== null && !kept.has(child))) return false;
  }
  return true;
}

/**
 * Marks the listings the watch saw change since the last walk as no longer trusted; true when
 * anything may have changed (or there is no watch).
 */
function distrustChanged(cache: GitEntryCache, watch: DirWatch | undefined): boolean {
  const changed = watch?.changes();
  if (changed === undefined) return true;
  if (changed.all) for (const listing of cache.values()) listing.trusted = false;
  for (const key of changed.keys) {
    const listing = cache.get(key);
    if (listing !== undefined) listing.trusted = false;
  }
  return changed.all || changed.keys.length > 0;
}

/** The path of `more` below the walk's current directory. */
function pathOf(walk: Walk, ...more: Uint8Array[]): BytePath {
  const names = walk.stack.frames.slice(1).map((frame) => frame.name);
  return bytePath(walk.workspace, [...names, ...more]);
}

/** Records `name` in the current directory as a part the walk could not check. */
function skip(walk: Walk, reason: string, name: Uint8Array): void {
  walk.unchecked.push({ kind: "unlistable", path: pathOf(walk, name).path, reason });
}

/** Takes one listing in (at `at` below the current directory): false once a limit is passed. */
function account(walk: Walk, listing: CachedListing, ...at: Uint8Array[]): boolean {
  const { limits } = walk;
  walk.visited += listing.size;
  if (listing.git !== undefined) walk.found.push(pathOf(walk, ...at, listing.git));
  if (walk.visited <= limits.entries && performance.now() <= walk.deadline) return true;
  walk.unchecked.push({
    kind: "limits",
    path: walk.workspace,
    reason:
      `the walk stopped at ${pathOf(walk, ...at).path}, past its limits (${limits.entries} ` +
      `entries or ${limits.ms} ms)`,
  });
  return false;
}

/**
 * Lists the open directory `fd`, or reuses its listing, watched from now on where it can be
 * (the watch first, so that no change between the look and the watch goes unseen).
 */
function listingOf(walk: Walk, fd: number, first: EntryStat): CachedListing | string {
  const { cache, kept, watch } = walk;
  const key = (first.dev << 64n) | first.ino;
  const cached = cache.get(key);
  if (cached?.trusted === true && watch?.watching(key) === true) {
    kept.set(key, cached);
    return cached;
  }
  const watched = watch?.watch(fd, key, first.dev) === true;
  const stat = watched ? walk.calls.stat(fd) : first;
  if (typeof stat === "string") return stat;
  const reused = cached?.settled === true && cached.ctimeNs === stat.ctimeNs ? cached : undefined;
  const listing = reused ?? listDirectory(walk.calls, fd, stat, stat.ctimeNs < walk.settled);
  if (typeof listing === "string") return listing;
  listing.trusted = watched;
  if (watched) listing.children = new Array(listing.subdirs.length);
  if (listing.settled || listing.trusted) kept.set(key, listing);
  return listing;
}

/**
 * Whether the subtree at `key` is trusted whole (`GitEntryCache`): every listing in it trusted
 * and watched, every child known. Remembered in `clean` for the rest of the walk.
 */
function isCleanTree(
  cache: GitEntryCache,
  watch: DirWatch | undefined,
  clean: Map<bigint, boolean>,
  key: bigint,
): boolean {
  const known = clean.get(key);
  if (known !== undefined) return known;
  const path: { key: bigint; listing: CachedListing; next: number }[] = [];
  const onPath = new Set<bigint>();
  const enter = (at: bigint): boolean => {
    const listing = cache.get(at);
    // A directory under itself cannot be: kept keys that say so are not trusted.
    if (listing?.trusted !== true || watch?.watching(at) !== true || onPath.has(at)) return false;
    path.push({ key: at, listing, next: 0 });
    onPath.add(at);
    return true;
  };
  const fail = () => {
    for (const step of path) clean.set(step.key, false);
    clean.set(key, false);
    return false;
  };
  if (!enter(key)) return fail();
  for (let step = path.at(-1); step !== undefined; step = path.at(-1)) {
    if (step.next === step.listing.subdirs.length) {
      clean.set(step.key, true);
      onPath.delete(step.key);
      path.pop();
      continue;
    }
    const child = step.listing.children[step.next++];
    if (child === undefined) return fail();
    if (child === null) continue;
    const seen = clean.get(child);
    if (seen === true) continue;
    if (seen === false || !enter(child)) return fail();
  }
  return true;
}

/** Takes in the trusted subtree at `key`, named `name` in the top directory: false past a limit. */
function accountTree(walk: Walk, key: bigint, name: Uint8Array): boolean {
  const pending: Named[] = [{ key, name, up: undefined }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const listing = walk.cache.get(next.key);
    if (listing === undefined) continue;
    walk.kept.set(next.key, listing);
    if (!account(walk, listing, ...(listing.git === undefined ? [] : namesOf(next)))) return false;
    const { children, subdirs } = listing;
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      const sub = subdirs[i];
      if (typeof child === "bigint" && sub !== undefined) {
        pending.push({ key: child, name: sub, up: next });
      }
    }
  }
  return true;
}

/**
 * One step of the walk: the entry `name`, the `index`th (maybe) directory of `top`, taken in
 * from what is known of it, or examined, opened and listed, and pushed when it has directories.
 */
function visitEntry(walk: Walk, top: Frame, index: number, name: Uint8Array): void {
  const { calls, stack } = walk;
  const parent = top.listing;
  const known = parent.trusted ? parent.children[index] : undefined;
  if (known === null) return;
  if (known !== undefined && isCleanTree(walk.cache, walk.watch, walk.clean, known)) {
    if (!accountTree(walk, known, name)) stack.dispose();
    return;
  }
  const stat = calls.stat(top.fd, name);
  if (typeof stat === "string") {
    if (stat !== "ENOENT") skip(walk, `it cannot be examined (${stat})`, name);
    return;
  }
  const key = (stat.dev << 64n) | stat.ino;
  if (parent.trusted) parent.children[index] = isDirectoryMode(stat.mode) ? key : null;
  if (!isDirectoryMode(stat.mode)) return;
  // A directory listed before that holds no directory needs no descriptor of its own (where
  // there is no watch: a descriptor is what starts one).
  const cached = walk.watch === undefined ? walk.cache.get(key) : undefined;
  if (cached?.settled === true && cached.ctimeNs === stat.ctimeNs && cached.subdirs.length === 0) {
    walk.kept.set(key, cached);
    if (!account(walk, cached, name)) stack.dispose();
    return;
  }
  const fd = calls.openDir(top.fd, name);
  if (typeof fd === "string") {
    // Gone, or no longer a directory: nothing to enter.
    if (fd === "ENOENT" || fd === "ENOTDIR" || fd === "ELOOP") return;
    if (changeable(stat)) skip(walk, `it cannot be opened (${fd})`, name);
    return;
  }
  const opened = calls.stat(fd);
  const listing = typeof opened === "string" ? opened : listingOf(walk, fd, opened);
  if (typeof listing === "string" || typeof opened === "string") {
    calls.close(fd);
    if (changeable(stat)) skip(walk, `it cannot be listed (${listing})`, name);
    return;
  }
  if (!account(walk, listing, name)) {
    calls.close(fd);
    stack.dispose();
    return;
  }
  if (listing.subdirs.length === 0) calls.close(fd);
  else stack.push({ fd, dev: opened.dev, ino: opened.ino, name, listing, next: 0 });
}

/**
 * The `.git` entries below `workspace`, for the protections set up before a command. Throws
 * `WorkspaceTooLargeError` past the limits, and `WorkspaceUncheckableError` for a directory a
 * command could change but dsh cannot list (a command could hide a repository there) and for
 * an entry no path names (not UTF-8, or longer than PATH_MAX), which no bind can protect.
 */
export function findGitEntries(workspace: string, options: WalkOptions): BytePath[] {
  const walk = walkGitEntries(workspace, options);
  const stopped = walk.unchecked.find((part) => part.kind === "limits");
  if (stopped !== undefined) {
    const limits = options.limits ?? DEFAULT_WALK_LIMITS;
    throw new WorkspaceTooLargeError(
      `${workspace} holds more than dsh can check for git repositories before and after a ` +
        `sandboxed command (${stopped.reason}); open a smaller directory as the project, raise ` +
        `[limits] walk_entries (now ${limits.entries}) or walk_ms (now ${limits.ms}) in the ` +
        "config file, or choose danger-full-access",
      { workspace },
    );
  }
  const first = walk.unchecked[0];
  if (first !== undefined) {
    throw new WorkspaceUncheckableError(
      `dsh cannot check ${first.path} for git repositories: ${first.reason}; make it readable ` +
        `(chmod u+rx ${first.path}) or remove it, then run the command again`,
      { path: first.path },
    );
  }
  const unnamed = walk.entries.find((entry) => !entry.nameable);
  if (unnamed !== undefined) {
    throw new WorkspaceUncheckableError(
      `${unnamed.path} is a git repository whose path is not UTF-8 or is longer than the ` +
        "system allows, so dsh cannot protect it from sandboxed commands; rename or move it, " +
        "then run the command again",
      { path: unnamed.path },
    );
  }
  return [...walk.entries];
}

/** The workspace's directory, open, and what it is. */
function openRoot(calls: DirCalls, workspace: string): { fd: number; stat: EntryStat } | string {
  const fd = calls.openPath(workspace);
  if (typeof fd === "string") return fd;
  const stat = calls.stat(fd);
  if (typeof stat !== "string") return { fd, stat };
  calls.close(fd);
  return stat;
}

function listDirectory(
  calls: DirCalls,
  fd: number,
  stat: EntryStat,
  settled: boolean,
): CachedListing | string {
  const subdirs: Uint8Array[] = [];
  const variants: Uint8Array[] = [];
  let git: Uint8Array | undefined;
  let size = 0;
  const failed = calls.list(fd, (bytes, start, end, type) => {
    size++;
    if (end - start === 4 && isGit(bytes, start)) git = GIT;
    else if (foldsToGit(bytes, start, end)) variants.push(bytes.slice(start, end + 1));
    else if (type === EntryType.dir || type === EntryType.unknown) {
      subdirs.push(bytes.slice(start, end + 1));
    }
  });
  if (failed !== undefined) return failed;
  git ??= variants.find((name) => sameEntry(calls, fd, name, GIT));
  // A variant git does not open as `.git` is an ordinary entry, to be walked like any other.
  for (const name of variants) if (name !== git) subdirs.push(name);
  // Sorted, so that a walk's order, and where its limits stop it, are the same every time.
  subdirs.sort(Buffer.compare);
  return { ctimeNs: stat.ctimeNs, subdirs, git, size, settled, trusted: false, children: [] };
}

function isGit(bytes: Uint8Array, start: number): boolean {
  for (let i = 0; i < 4; i++) if (bytes[start + i] !== GIT[i]) return false;
  return true;
}

/**
 * Whether `bytes[start, end)` is `.git` under case folding, HFS+'s ignorable code points
 * (U+200C-U+200F, U+202A-U+202E, U+206A-U+206F, U+FEFF) left out, as git's own `.git` checks
 * for HFS+ and NTFS do.
 */
export function foldsToGit(bytes: Uint8Array, start: number, end: number): boolean {
  let matched = 0;
  for (let i = start; i < end; ) {
    const skip = ignorableLength(bytes, i);
    if (skip > 0) {
      i += skip;
      continue;
    }
    const byte = bytes[i] ?? 0;
    const lower = byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte;
    if (matched >= 4 || lower !== GIT[matched]) return false;
    matched++;
    i++;
  }
  return matched === 4;
}

/** The length of the ignorable code point at `i` in UTF-8, or 0. */
function ignorableLength(bytes: Uint8Array, i: number): number {
  const [a, b, c] = [bytes[i], bytes[i + 1], bytes[i + 2]];
  if (a === 0xef && b === 0xbb && c === 0xbf) return 3;
  if (a !== 0xe2 || c === undefined) return 0;
  if (b === 0x80 && ((c >= 0x8c && c <= 0x8f) || (c >= 0xaa && c <= 0xae))) return 3;
  if (b === 0x81 && c >= 0xaa && c <= 0xaf) return 3;
  return 0;
}

/** Whether `name` and `other` in the directory `fd` are the same entry (device and inode). */
function sameEntry(calls: DirCalls, fd: number, name: Uint8Array, other: Uint8Array): boolean {
  const a = calls.stat(fd, name);
  const b = calls.stat(fd, other);
  return typeof a !== "string" && typeof b !== "string" && a.dev === b.dev && a.ino === b.ino;
}

/**
 * Whether a command (running as this user, without capabilities) could add entries to a
 * directory dsh cannot list: it is ours (the owner may change its mode), or others may write it.
 */
function changeable(stat: EntryStat): boolean {
  return stat.uid === process.geteuid?.() || (stat.mode & 0o022) !== 0;
}
