/**
 * A root's snapshots, made incremental by its tree watch: once every directory the ignore rules
 * leave in is watched, a checkpoint stages again only the paths the watch reported (each hashed
 * again whatever its stat data says), and one of an unchanged root runs no git at all. Whatever
 * the watch cannot vouch for (it lost events, an ignore file changed, a nested repository or
 * another device lies inside, too many paths changed, git refused a path) is staged the full
 * way, as `snapshot` does, with every directory watched again first; so is a name that is
 * not UTF-8, which only git's own walk names as the bytes it is.
 */
import { type Dirent, type Stats, lstatSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { zRecords } from "./path-bytes.ts";
import { type ShadowGit, projectExcludes } from "./shadow-git.ts";
import { snapshot } from "./tree-ops.ts";
import type { TreeWatch, TreeWatcher } from "./tree-watch.ts";

/** More changed paths than this are staged the full way (git's own walk is cheaper then). */
const MOST_CHANGED = 5_000;
/** After this many walks that could not watch everything, a root is always staged the full way. */
const MOST_FAILED_WALKS = 3;

export interface RootSnapshots {
  /** The tree of the root as it is now. */
  snapshot(): Promise<string>;
  /**
   * The store was pruned: the last tree may be gone with it, so the next snapshot writes it
   * again (one `write-tree`) even when nothing changed.
   */
  pruned(): void;
  /** Ends the root's watches. */
  close(): void;
}

/** The snapshots of `root` through `git`, incremental where `watcher` can watch it. */
export function rootSnapshots(
  git: ShadowGit,
  root: string,
  watcher: () => Promise<TreeWatcher | undefined>,
): RootSnapshots {
  let watch: TreeWatch | undefined;
  /** The root cannot be watched soundly (nested repository, other device, no watcher). */
  let unwatchable = false;
  let failedWalks = 0;
  let lastTree: string | undefined;
  let lastExcludes = "";
  let stale = false;
  let closed = false;

  const fully = async (): Promise<string> => {
    lastTree = undefined;
    const current = watch;
    if (current !== undefined) {
      current.reset();
      if (await watchEverything(git, root, current).catch(() => false)) {
        failedWalks = 0;
      } else if (++failedWalks >= MOST_FAILED_WALKS) {
        current.close();
        if (watch === current) watch = undefined;
        unwatchable = true;
      } else {
        current.reset();
      }
    }
    const tree = await snapshot(git, root);
    stale = false;
    lastTree = watch === undefined ? undefined : tree;
    return tree;
  };

  return {
    async snapshot() {
      if (watch === undefined && !unwatchable && !closed) {
        const open = await watcher();
        watch = open?.(root);
        if (watch === undefined) unwatchable = true;
      }
      if (watch === undefined) return snapshot(git, root);
      const changes = watch.take();
      const excludes = excludesStamp(root);
      const excludesChanged = excludes !== lastExcludes;
      lastExcludes = excludes;
      if (changes.all || lastTree === undefined || excludesChanged) return fully();
      if (changes.paths.size === 0 && !stale) return lastTree;
      const paths = [...changes.paths];
      if (paths.length > MOST_CHANGED || paths.some(changesIgnoreRules)) return fully();
      try {
        const tree = await stageChanged(git, root, watch, paths);
        if (tree === undefined) return fully();
        stale = false;
        lastTree = tree;
        return tree;
      } catch {
        return fully();
      }
    },
    pruned() {
      stale = true;
    },
    close() {
      closed = true;
      watch?.close();
      watch = undefined;
    },
  };
}

/** A path whose change changes what is ignored, or a repository inside the root. */
function changesIgnoreRules(path: string): boolean {
  return basename(path) === ".gitignore" || path.split("/").includes(".git");
}

/** What identifies the project's `info/exclude` as it is now ("" when there is none). */
function excludesStamp(root: string): string {
  const file = projectExcludes(root);
  if (file === "/dev/null") return "";
  try {
    const stat = lstatSync(file, { bigint: true });
    return `${file}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  } catch {
    return "";
  }
}

/**
 * Watches every directory of the root the ignore rules leave in (a folder that holds a staged
 * file is never ignored: git stages such a file still); false when one cannot be watched.
 */
async function watchEverything(git: ShadowGit, root: string, watch: TreeWatch): Promise<boolean> {
  const rootDev = lstatSync(root).dev;
  return (await walk(git, root, rootDev, watch, [""])) !== undefined;
}

/**
 * Watches `dirs` and every directory below them the ignore rules leave in, each before it is
 * listed; returns the other entries found, or undefined when a directory cannot be watched or
 * holds what only the full way stages as git does (a repository, another device).
 */
async function walk(
  git: ShadowGit,
  root: string,
  rootDev: number,
  watch: TreeWatch,
  dirs: readonly string[],
): Promise<string[] | undefined> {
  const files: string[] = [];
  let level = dirs;
  while (level.length > 0) {
    const next: string[] = [];
    for (const dir of level) {
      if (!watch.watch(dir)) return undefined;
      let entries: Dirent[];
      try {
        entries = readdirSync(join(root, dir), { withFileTypes: true });
      } catch {
        continue; // Gone since: its parent's watch reported that.
      }
      for (const entry of entries) {
        const name = entry.name;
        // A name that is not UTF-8 reads with U+FFFD in its place and cannot be named to git
        // here: the full way stages it (and a name that really holds U+FFFD).
        if (name.includes("\uFFFD")) return undefined;
        if (name === ".git") {
          if (dir === "") continue;
          return undefined;
        }
        const path = dir === "" ? name : `${dir}/${name}`;
        // The type the directory entry gives, unless the file system gives none.
        const known = entry.isFile() || entry.isSymbolicLink() || entry.isDirectory();
        const stat = known && !entry.isDirectory() ? undefined : statOf(join(root, path));
        if (stat?.isDirectory() !== true) {
          files.push(path);
          continue;
        }
        if (stat.dev !== rootDev) return undefined;
        next.push(path);
      }
    }
    level = await notIgnored(git, next);
  }
  return files;
}

/** The paths of `paths` the ignore rules leave in (a path staged already always is). */
async function notIgnored(git: ShadowGit, paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  // Exit 1: none of them is ignored.
  const out = await git.text(["check-ignore", "--stdin", "-z"], `${paths.join("\0")}\0`, [0, 1]);
  const ignored = new Set(out.split("\0"));
  return paths.filter((path) => !ignored.has(path));
}

/**
 * Stages again the paths the watch reported (and what is below those that are or were
 * directories); the tree then, or undefined when the full way must do it.
 */
async function stageChanged(
  git: ShadowGit,
  root: string,
  watch: TreeWatch,
  reported: readonly string[],
): Promise<string | undefined> {
  const candidates = new Set(reported);
  const newDirs: string[] = [];
  const maybeDirs: string[] = [];
  for (const path of reported) {
    const stat = statOf(join(root, path));
    if (stat?.isDirectory() === true) newDirs.push(path);
    if (stat === undefined || stat.isDirectory()) maybeDirs.push(path);
  }
  // What was staged below a path that went or is a directory now.
  if (maybeDirs.length > 0) {
    const out = await git.run(["ls-files", "-z", "--", ...maybeDirs.map(literal)]);
    for (const record of zRecords(out)) {
      const path = utf8(record);
      if (path === undefined) return undefined;
      candidates.add(path);
    }
  }
  if (newDirs.length > 0) {
    const rootDev = lstatSync(root).dev;
    const below = await walk(git, root, rootDev, watch, await notIgnored(git, newDirs));
    if (below === undefined) return undefined;
    for (const path of below) candidates.add(path);
  }
  if (candidates.size > MOST_CHANGED) return undefined;
  const kept = await notIgnored(git, [...candidates]);
  const files = kept.filter((path) => {
    const stat = statOf(join(root, path));
    return stat !== undefined && (stat.isFile() || stat.isSymbolicLink());
  });
  // Out of the index first, so each file is hashed again even when its stat data looks the
  // same (a rewrite in place within the same second, of the same size); then in again. One
  // run: update-index applies each option to the paths after it. `./` keeps a name that starts
  // with `-` a path.
  if (kept.length > 0) {
    await git.run([
      "update-index",
      "--force-remove",
      ...kept.map((path) => `./${path}`),
      "--no-force-remove",
      "--add",
      "--remove",
      ...files.map((path) => `./${path}`),
    ]);
  }
  return (await git.text(["write-tree"])).trim();
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function literal(path: string): string {
  return `:(literal)${path}`;
}

function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
