/**
 * What a checkpoint is made of and how a workspace goes back to one, in git plumbing over a
 * shadow store: a snapshot stages every file the ignore rules leave in (tracked or not) and
 * writes a tree; the index keeps each file's stat data, so an unchanged file is not read again.
 */
import { lstatSync, readFileSync, readdirSync, readlinkSync, rmSync, rmdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ShadowGit } from "./shadow-git.ts";

/** The tree of the workspace as it is now. */
export async function snapshot(git: ShadowGit, root: string): Promise<string> {
  if (!git.hasIndex()) await packEverything(git, root);
  // `--ignore-errors`: a file that vanishes or cannot be read mid-walk is left out, and the
  // rest is staged; git still exits non-zero, so only `write-tree` decides whether it worked.
  await git.run(["add", "--all", "--ignore-errors", "--", "."]).catch(() => undefined);
  return (await git.text(["write-tree"])).trim();
}

/** Files larger than this are left to `git add`: the pack stream is held a chunk at a time. */
const PACKED_FILE_MAX = 8 * 1024 * 1024;
/** How many bytes of the stream go to git at once. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The first snapshot of a root writes its files' objects into one pack (`git fast-import`)
 * instead of one loose object file each: on a large tree that is many times faster and a
 * fraction of the space. `git add` then finds every object there and only records stat data.
 */
async function packEverything(git: ShadowGit, root: string): Promise<void> {
  const listed = await git.text(["ls-files", "-z", "--others", "--exclude-standard"]);
  const paths = listed.split("\0").filter((path) => path !== "" && !path.endsWith("/"));
  const encoder = new TextEncoder();
  function* stream(): Generator<Uint8Array> {
    let parts: Uint8Array[] = [];
    let size = 0;
    for (const path of paths) {
      const content = blobOf(join(root, path));
      if (content === undefined) continue;
      parts.push(encoder.encode(`blob\ndata ${content.byteLength}\n`), content, NEWLINE);
      size += content.byteLength + 32;
      if (size < CHUNK_BYTES) continue;
      yield Buffer.concat(parts);
      parts = [];
      size = 0;
    }
    parts.push(encoder.encode("done\n"));
    yield Buffer.concat(parts);
  }
  await git.feed(["fast-import", "--quiet", "--done"], stream());
}

const NEWLINE = new Uint8Array([10]);

/** What git would store for a path: a file's bytes, a symlink's target; else nothing. */
function blobOf(path: string): Uint8Array | undefined {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return new TextEncoder().encode(readlinkSync(path));
    if (!stat.isFile() || stat.size > PACKED_FILE_MAX) return undefined;
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** The paths whose entry (content, mode or presence) differs between two trees. */
export async function changedPaths(git: ShadowGit, from: string, to: string): Promise<string[]> {
  if (from === to) return [];
  const out = await git.text(["diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to]);
  return out.split("\0").filter((path) => path !== "");
}

/** Each file of `tree` (path → mode and object), for the paths asked about. */
async function entriesOf(
  git: ShadowGit,
  tree: string,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  if (paths.length === 0) return entries;
  const out = await git.text(["ls-tree", "-r", "-z", "--full-tree", tree]);
  const wanted = new Set(paths);
  for (const line of out.split("\0")) {
    const tab = line.indexOf("\t");
    if (tab < 0) continue;
    const path = line.slice(tab + 1);
    if (wanted.has(path)) entries.set(path, line.slice(0, tab));
  }
  return entries;
}

/** The paths among `paths` whose entry differs between two trees. */
export async function differingAmong(
  git: ShadowGit,
  a: string,
  b: string,
  paths: readonly string[],
): Promise<string[]> {
  const changed = new Set(await changedPaths(git, a, b));
  return paths.filter((path) => changed.has(path));
}

export interface RestoreReport {
  /** Written back with the content and mode they had (they exist, but differ). */
  readonly restored: readonly string[];
  /** Written back where they had been deleted. */
  readonly recreated: readonly string[];
  /** Removed: they did not exist then. */
  readonly removed: readonly string[];
  /**
   * Left as they are: a folder on their way is now a link or no folder, so removing them could
   * reach outside the workspace.
   */
  readonly unreachable: readonly string[];
}

/**
 * Puts `paths` of the workspace back as they are in `tree`: a file in it is written with its
 * bytes and mode (a symlink as a symlink), a file not in it is removed along with the folders
 * it leaves empty. Nothing else in the workspace is touched.
 */
export async function restorePaths(
  git: ShadowGit,
  root: string,
  tree: string,
  paths: readonly string[],
  scratchIndex: string,
): Promise<RestoreReport> {
  const entries = await entriesOf(git, tree, paths);
  const gone = paths.filter((path) => !entries.has(path));
  const restored = paths.filter((path) => entries.has(path));
  const recreated = new Set(restored.filter((path) => !exists(join(root, path))));
  // A link swapped in for a folder on the way (by a command still running, say) would turn
  // the removal into one outside the workspace: such paths are left alone.
  const unreachable = gone.filter((path) => !throughFolders(root, path));
  const removed = gone.filter((path) => !unreachable.includes(path));
  for (const path of removed) {
    rmSync(join(root, path), { force: true, recursive: isDirectory(join(root, path)) });
    removeEmptyParents(root, dirname(path));
  }
  if (restored.length > 0) {
    // A file in the way of a folder to restore (or a folder in the way of a file) goes first.
    for (const path of restored) clearWay(root, path);
    const scratch = git.withIndex(scratchIndex);
    await scratch.run(["read-tree", tree]);
    await scratch.run(["checkout-index", "-f", "-z", "--stdin"], `${restored.join("\0")}\0`);
    rmSync(scratchIndex, { force: true });
  }
  return {
    restored: restored.filter((path) => !recreated.has(path)),
    recreated: [...recreated],
    removed,
    unreachable,
  };
}

/** The diff between two trees as text: the files with their status first, then a unified diff. */
export async function treeDiff(git: ShadowGit, from: string, to: string): Promise<string> {
  if (from === to) return "";
  const base = ["diff-tree", "-r", "--no-renames", "--no-color", "--no-ext-diff", "--no-textconv"];
  const list = await git.text([...base, "--name-status", from, to]);
  if (list.trim() === "") return "";
  const patch = await git.text([...base, "-p", "--src-prefix=a/", "--dst-prefix=b/", from, to]);
  return `${list.trimEnd()}\n\n${patch}`;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Whether every folder between `root` and `path` is a real folder, no link: what is found at
 * `path` then lies inside `root`. A folder that is missing holds nothing to remove either.
 */
function throughFolders(root: string, path: string): boolean {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const folder = lstatSync(join(root, ...parts.slice(0, i)), { throwIfNoEntry: false });
    if (folder === undefined) return true;
    if (!folder.isDirectory()) return false;
  }
  return true;
}

/** Removes `dir` and its parents below `root` while they are empty. */
function removeEmptyParents(root: string, dir: string): void {
  for (let current = dir; current !== "." && current !== "" && current !== "/"; ) {
    const absolute = join(root, current);
    try {
      if (readdirSync(absolute).length > 0) return;
      rmdirSync(absolute);
    } catch {
      return;
    }
    current = dirname(current);
  }
}

/** A file standing where a parent folder of `path` must be, or a folder where `path` must be. */
function clearWay(root: string, path: string): void {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const prefix = join(root, ...parts.slice(0, i));
    try {
      if (!lstatSync(prefix).isDirectory()) {
        rmSync(prefix, { force: true });
        return;
      }
    } catch {
      return;
    }
  }
  const target = join(root, path);
  if (isDirectory(target)) rmSync(target, { recursive: true, force: true });
}
