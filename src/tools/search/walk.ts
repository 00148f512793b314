/**
 * The directory walk behind glob and grep: sorted, depth-bounded, never following symlinked
 * directories (no cycles, no escapes), skipping secret places (credential stores, dsh's state
 * directory; directories also by device and inode), what git and ripgrep would
 * ignore (see `ignore-rules.ts`), hidden entries and `.git`/`node_modules`, unless the
 * search names them. Files come out in walk order: a directory's files by name, then its
 * subdirectories by name, each depth-first.
 */
import * as fs from "node:fs";
import type { Dirent } from "node:fs";
import * as path from "node:path";
import { secretMatch } from "../../file-safety/credential-paths.ts";
import { type IgnoreScope, ignoreScopeOf, isIgnoreFile } from "./ignore-rules.ts";
import type { SecretSnapshot } from "../../file-safety/secret-identity.ts";

/** Directories skipped unless the search names them. */
export const NOISY_DIRS: readonly string[] = [".git", "node_modules"];

/** Work done between two yields to the event loop, so a huge tree never holds it long. */
const SLICE_MS = 8;

export interface WalkOptions {
  readonly signal: AbortSignal;
  /** Directory names not descended into. */
  readonly skipDirs: ReadonlySet<string>;
  /** The secret places skipped. */
  readonly secrets: SecretSnapshot;
  /** Deepest level of entries visited (1: the base's own entries). */
  readonly maxDepth: number;
  /** Entries visited before the walk stops with `capped`. */
  readonly maxEntries: number;
  /** Follow ignore files (default true). */
  readonly respectIgnores?: boolean;
  /** Visit hidden files and directories (default false, as ripgrep). */
  readonly hidden?: boolean;
  /** Called with each file as it is found (the walk is in walk order). */
  readonly onFile?: (entry: WalkEntry) => void;
}

/** A file or symlink found by the walk. */
export interface WalkEntry {
  readonly absolute: string;
  /** Relative to the base, with `/` separators (what glob patterns match). */
  readonly relative: string;
  readonly isSymlink: boolean;
}

/**
 * Every file under `base` the walk visits, in walk order (a directory's files by name, then
 * its subdirectories, depth-first); `capped` when `maxEntries` stopped it, `ignored` the
 * entries ignore files kept out (each ignored directory counts once). Unreadable directories
 * are skipped. Throws only on abort.
 */
export async function collectFiles(
  base: string,
  options: WalkOptions,
): Promise<{ files: WalkEntry[]; capped: boolean; ignored: number }> {
  const files: WalkEntry[] = [];
  let visited = 0;
  let ignored = 0;
  const respect = options.respectIgnores !== false;
  const home = options.secrets.places.homeDirs[0];
  const { hidden, maxDepth, maxEntries, onFile, secrets, skipDirs } = options;
  // One loop over a stack of directories, not a recursion of async calls: in a fresh process
  // each awaited call is a promise and a frame the JIT has yet to learn.
  const pending: Pending[] = [];
  // `outer`: the parent's scope when `enter` names the directory entered, else its own.
  const visitDir = (
    dir: string,
    relative: string,
    depth: number,
    outer: IgnoreScope | undefined,
    enter: string | undefined,
    entries: Dirent[],
  ): boolean => {
    // Names read once: a Dirent's getter is slow to call in a sort comparator.
    const named = entries.map((entry) => ({ name: entry.name, entry }));
    named.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const scope =
      enter === undefined
        ? outer
        : outer?.enter(
            enter,
            named.some(({ name }) => isIgnoreFile(name)),
          );
    const prefix = dir.endsWith(path.sep) ? dir : `${dir}${path.sep}`;
    const relPrefix = relative === "" ? "" : `${relative}/`;
    const subdirs = pending.length;
    for (const { name, entry } of named) {
      if (++visited > maxEntries) return false;
      if (!hidden && name.startsWith(".")) continue;
      const isDirectory = entry.isDirectory();
      if (scope?.ignores(name, isDirectory) === true) {
        ignored++;
        continue;
      }
      const absolute = `${prefix}${name}`;
      if (isDirectory) {
        if (depth < maxDepth && !skipDirs.has(name) && secrets.match(absolute) === undefined) {
          pending.push({ absolute, rel: `${relPrefix}${name}`, name, depth: depth + 1, scope });
        }
        continue;
      }
      const isSymlink = entry.isSymbolicLink();
      if (!isSymlink && !entry.isFile()) continue;
      // Directories were checked on the way down (by path and identity); a file can still be a
      // store of its own, or a process's environment.
      if (secrets.places.byPath.has(absolute)) continue;
      if (absolute.startsWith("/proc/") && secretMatch(absolute, secrets.places)) continue;
      const found = { absolute, relative: `${relPrefix}${name}`, isSymlink };
      files.push(found);
      onFile?.(found);
    }
    // The first subdirectory is taken next: the stack holds them last to first.
    for (let low = subdirs, high = pending.length - 1; low < high; low++, high--) {
      const first = pending[low] as Pending;
      pending[low] = pending[high] as Pending;
      pending[high] = first;
    }
    return true;
  };
  options.signal.throwIfAborted();
  const scope = respect ? ignoreScopeOf(base, { home }) : undefined;
  if (!visitDir(base, "", 1, scope, undefined, readEntries(base)))
    return { files, capped: true, ignored };
  // Synchronous reads of a warm tree are several times faster than the thread pool's; the walk
  // yields every few milliseconds, so sessions, cancels and pipes are never held for long.
  let sliceStart = performance.now();
  for (let sub = pending.pop(); sub !== undefined; sub = pending.pop()) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      options.signal.throwIfAborted();
      sliceStart = performance.now();
    }
    const children = readEntries(sub.absolute);
    if (!visitDir(sub.absolute, sub.rel, sub.depth, sub.scope, sub.name, children)) {
      return { files, capped: true, ignored };
    }
  }
  return { files, capped: false, ignored };
}

/** A directory the walk has yet to visit, with the scope of the directory that holds it. */
interface Pending {
  readonly absolute: string;
  readonly rel: string;
  readonly name: string;
  readonly depth: number;
  readonly scope: IgnoreScope | undefined;
}

function readEntries(dir: string): Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
/** The noisy directories a search does not name, and so skips. */
export function skippedDirs(...named: readonly (string | undefined)[]): ReadonlySet<string> {
  return new Set(NOISY_DIRS.filter((dir) => !named.some((text) => text?.includes(dir) === true)));
}

/** Whether a path or pattern names a hidden entry (a segment starting with "."). */
export function namesHidden(...named: readonly (string | undefined)[]): boolean {
  return named.some((text) => text !== undefined && /(^|\/)\.[^./]/.test(text));
}

/** The line a search adds when ignore files kept entries out of it. */
export function ignoredNote(ignored: number): string {
  const entries = ignored === 1 ? "1 entry" : `${ignored} entries`;
  return `[${entries} skipped as ignored (.gitignore, .ignore, .git/info/exclude); name the path to search there]`;
}
