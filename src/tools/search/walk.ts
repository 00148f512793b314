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
  // Synchronous reads of a warm tree are several times faster than the thread pool's; the walk
  // yields every few milliseconds, so sessions, cancels and pipes are never held for long.
  let sliceStart = performance.now();
  const visitDir = async (
    dir: string,
    relative: string,
    depth: number,
    scope: IgnoreScope | undefined,
    entries: Dirent[],
  ): Promise<boolean> => {
    // Names read once: a Dirent's getter is slow to call in a sort comparator.
    const named = entries.map((entry) => ({ name: entry.name, entry }));
    named.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: { absolute: string; rel: string; name: string }[] = [];
    for (const { name, entry } of named) {
      if (++visited > options.maxEntries) return false;
      if (!options.hidden && name.startsWith(".")) continue;
      const absolute = `${dir}${dir.endsWith(path.sep) ? "" : path.sep}${name}`;
      const rel = relative === "" ? name : `${relative}/${name}`;
      const isDirectory = entry.isDirectory();
      if (scope?.ignores(name, isDirectory) === true) {
        ignored++;
        continue;
      }
      if (isDirectory) {
        if (
          depth < options.maxDepth &&
          !options.skipDirs.has(name) &&
          options.secrets.match(absolute) === undefined
        ) {
          subdirs.push({ absolute, rel, name });
        }
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      // Directories were checked on the way down (by path and identity); a file can still be a
      // store of its own, or a process's environment.
      if (options.secrets.places.byPath.has(absolute)) continue;
      if (absolute.startsWith("/proc/") && secretMatch(absolute, options.secrets.places)) continue;
      const found = { absolute, relative: rel, isSymlink: entry.isSymbolicLink() };
      files.push(found);
      options.onFile?.(found);
    }
    for (const sub of subdirs) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        options.signal.throwIfAborted();
        sliceStart = performance.now();
      }
      const children = readEntries(sub.absolute);
      const inner = scope?.enter(
        sub.name,
        children.some((child) => isIgnoreFile(child.name)),
      );
      if (!(await visitDir(sub.absolute, sub.rel, depth + 1, inner, children))) return false;
    }
    return true;
  };
  options.signal.throwIfAborted();
  const scope = respect ? ignoreScopeOf(base, { home }) : undefined;
  const complete = await visitDir(base, "", 1, scope, readEntries(base));
  return { files, capped: !complete, ignored };
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
