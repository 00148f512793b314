/**
 * What a checkpoint is made of and how a workspace goes back to one, in git plumbing over a
 * shadow store: a snapshot stages every file the ignore rules leave in (tracked or not) and
 * writes a tree; the index keeps each file's stat data, so an unchanged file is not read again.
 * Paths stay bytes from git's output to the file system (`path-bytes.ts`): a name that is not
 * UTF-8 is restored as it was.
 */
import {
  type Stats,
  lstatSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  rmdirSync,
} from "node:fs";
import { foldersOn, pathBytes, shownPath, underRoot, zRecords } from "./path-bytes.ts";
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
  const listed = await git.run(["ls-files", "-z", "--others", "--exclude-standard"]);
  const rootBytes = Buffer.from(`${root}/`, "utf8");
  const paths = zRecords(listed).filter((path) => path.at(-1) !== SLASH);
  const encoder = new TextEncoder();
  function* stream(): Generator<Uint8Array> {
    let parts: Uint8Array[] = [];
    let size = 0;
    for (const path of paths) {
      const content = blobOf(Buffer.concat([rootBytes, path]));
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

const SLASH = 0x2f;
const TAB = 0x09;
const NUL = Buffer.from([0]);
const NEWLINE = new Uint8Array([10]);

/** What git would store for a path: a file's bytes, a symlink's target; else nothing. */
function blobOf(path: Buffer): Uint8Array | undefined {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return readlinkSync(path, { encoding: "buffer" });
    if (!stat.isFile() || stat.size > PACKED_FILE_MAX) return undefined;
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** The paths whose entry (content, mode or presence) differs between two trees. */
export async function changedPaths(git: ShadowGit, from: string, to: string): Promise<string[]> {
  if (from === to) return [];
  const out = await git.run(["diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to]);
  return zRecords(out).map(shownPath);
}

/** Each file of `tree` (path → mode and object), for the paths asked about. */
async function entriesOf(
  git: ShadowGit,
  tree: string,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  if (paths.length === 0) return entries;
  const out = await git.run(["ls-tree", "-r", "-z", "--full-tree", tree]);
  const wanted = new Set(paths);
  for (const line of zRecords(out)) {
    const tab = line.indexOf(TAB);
    if (tab < 0) continue;
    const path = shownPath(line.subarray(tab + 1));
    if (wanted.has(path)) entries.set(path, Buffer.from(line.subarray(0, tab)).toString("latin1"));
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
  const recreated = new Set(restored.filter((path) => !exists(underRoot(root, path))));
  // A link swapped in for a folder on the way (by a command still running, say) would turn
  // the removal into one outside the workspace: such paths are left alone.
  const unreachable = gone.filter((path) => !throughFolders(root, path));
  const removed = gone.filter((path) => !unreachable.includes(path));
  for (const path of removed) {
    const target = underRoot(root, path);
    rmSync(target, { force: true, recursive: isDirectory(target) });
    removeEmptyParents(foldersOn(root, path));
  }
  if (restored.length > 0) {
    // A file in the way of a folder to restore (or a folder in the way of a file) goes first.
    for (const path of restored) clearWay(root, path);
    const scratch = git.withIndex(scratchIndex);
    await scratch.run(["read-tree", tree]);
    const names = restored.flatMap((path) => [pathBytes(path), NUL]);
    await scratch.run(["checkout-index", "-f", "-z", "--stdin"], Buffer.concat(names));
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
  // The list as bytes: its names shown as checkpoints name them (a name not UTF-8 escaped).
  const records = zRecords(await git.run([...base, "-z", "--name-status", from, to]));
  if (records.length === 0) return "";
  const lines: string[] = [];
  for (let i = 0; i + 1 < records.length; i += 2) {
    lines.push(
      `${Buffer.from(records[i] ?? []).toString("latin1")}\t${shownPath(records[i + 1] ?? new Uint8Array())}`,
    );
  }
  const list = lines.join("\n");
  const patch = await git.text([...base, "-p", "--src-prefix=a/", "--dst-prefix=b/", from, to]);
  return `${list.trimEnd()}\n\n${patch}`;
}

/** What is at `path`, not following a link; undefined when nothing can be seen there. */
function entryAt(path: Buffer): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function exists(path: Buffer): boolean {
  return entryAt(path) !== undefined;
}

function isDirectory(path: Buffer): boolean {
  return entryAt(path)?.isDirectory() === true;
}

/**
 * Whether every folder between `root` and `path` is a real folder, no link: what is found at
 * `path` then lies inside `root`. A folder that is missing holds nothing to remove either.
 */
function throughFolders(root: string, path: string): boolean {
  for (const folder of foldersOn(root, path)) {
    const stat = lstatSync(folder, { throwIfNoEntry: false });
    if (stat === undefined) return true;
    if (!stat.isDirectory()) return false;
  }
  return true;
}

/** Removes the innermost of `folders` and those around it while they are empty. */
function removeEmptyParents(folders: readonly Buffer[]): void {
  for (const folder of [...folders].reverse()) {
    try {
      if (readdirSync(folder).length > 0) return;
      rmdirSync(folder);
    } catch {
      return;
    }
  }
}

/** A file standing where a parent folder of `path` must be, or a folder where `path` must be. */
function clearWay(root: string, path: string): void {
  for (const folder of foldersOn(root, path)) {
    const stat = entryAt(folder);
    if (stat === undefined) return;
    if (!stat.isDirectory()) {
      rmSync(folder, { force: true });
      return;
    }
  }
  const target = underRoot(root, path);
  if (isDirectory(target)) rmSync(target, { recursive: true, force: true });
}
