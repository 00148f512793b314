/**
 * The directory walk behind glob and grep: sorted, depth-bounded, never following symlinked
 * directories (no cycles, no escapes), skipping secret places (credential stores, dsh's state
 * directory; directories also by device and inode), what git and ripgrep would
 * ignore (see `search/ignore-rules.ts`), hidden entries and `.git`/`node_modules`, unless the
 * search names them. Directories are read many at once; the files come out in path order.
 */
import type { Dirent } from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { secretMatch } from "./credential-paths.ts";
import { type IgnoreScope, ignoreScopeOf } from "./search/ignore-rules.ts";
import type { SecretSnapshot } from "./secret-identity.ts";

/** Directories skipped unless the search names them. */
export const NOISY_DIRS: readonly string[] = [".git", "node_modules"];

/** Directory reads in flight at once. */
const READ_CONCURRENCY = 32;

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
}

/** A file or symlink found by the walk. */
export interface WalkEntry {
  readonly absolute: string;
  /** Relative to the base, with `/` separators (what glob patterns match). */
  readonly relative: string;
  readonly isSymlink: boolean;
}

export interface WalkSummary {
  /** True when `maxEntries` stopped the walk. */
  readonly capped: boolean;
  /** Entries skipped because an ignore file lists them (each ignored directory counts once). */
  readonly ignored: number;
}

/**
 * Visits the files under `base` in path order. `visit` returns `"stop"` to end the walk early.
 * Unreadable directories are skipped. Throws only on abort.
 */
export async function walkFiles(
  base: string,
  options: WalkOptions,
  visit: (entry: WalkEntry) => Promise<"continue" | "stop"> | "continue" | "stop",
): Promise<WalkSummary> {
  const { files, capped, ignored } = await collectFiles(base, options);
  for (const entry of files) {
    options.signal.throwIfAborted();
    if ((await visit(entry)) === "stop") break;
  }
  return { capped, ignored };
}

interface Pending {
  readonly dir: string;
  readonly relative: string;
  readonly depth: number;
  readonly scope: IgnoreScope | undefined;
}

/** Every file the walk would visit, in path order. */
export async function collectFiles(
  base: string,
  options: WalkOptions,
): Promise<{ files: WalkEntry[]; capped: boolean; ignored: number }> {
  const files: WalkEntry[] = [];
  let visited = 0;
  let ignored = 0;
  let capped = false;
  const respect = options.respectIgnores !== false;
  const rootEntries = await readEntries(base);
  const first: Pending = {
    dir: base,
    relative: "",
    depth: 1,
    scope: respect ? ignoreScopeOf(base, { home: options.secrets.places.homeDirs[0] }) : undefined,
  };
  const queue: { pending: Pending; entries: Dirent[] }[] = [
    { pending: first, entries: rootEntries },
  ];
  const inFlight = new Set<Promise<void>>();

  const handle = ({ pending, entries }: { pending: Pending; entries: Dirent[] }) => {
    const { dir, relative, depth, scope } = pending;
    for (const entry of entries) {
      if (++visited > options.maxEntries) {
        capped = true;
        return;
      }
      const { name } = entry;
      if (!options.hidden && name.startsWith(".")) continue;
      const absolute = path.join(dir, name);
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
          const read = readEntries(absolute).then((children) => {
            const names = new Set(children.map((child) => child.name));
            queue.push({
              pending: {
                dir: absolute,
                relative: rel,
                depth: depth + 1,
                scope: scope?.enter(name, names),
              },
              entries: children,
            });
          });
          inFlight.add(read);
          void read.finally(() => inFlight.delete(read));
        }
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      if (secretMatch(absolute, options.secrets.places) !== undefined) continue;
      files.push({ absolute, relative: rel, isSymlink: entry.isSymbolicLink() });
    }
  };

  for (;;) {
    options.signal.throwIfAborted();
    const next = queue.pop();
    if (next !== undefined) {
      handle(next);
      if (capped) break;
      // Keep the reads bounded: wait for one before queueing more than the limit.
      while (inFlight.size > READ_CONCURRENCY) await Promise.race(inFlight);
      continue;
    }
    if (inFlight.size === 0) break;
    await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  files.sort((a, b) => comparePaths(a.relative, b.relative));
  return { files, capped, ignored };
}

/**
 * Walk order: a directory's files in name order, then its subdirectories in name order, each
 * depth-first (what a sequential walk visits).
 */
function comparePaths(a: string, b: string): number {
  const as = a.split("/");
  const bs = b.split("/");
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const x = as[i] ?? "";
    const y = bs[i] ?? "";
    if (x === y) continue;
    const xIsFile = i === as.length - 1;
    const yIsFile = i === bs.length - 1;
    if (xIsFile !== yIsFile) return xIsFile ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return as.length - bs.length;
}

async function readEntries(dir: string): Promise<Dirent[]> {
  try {
    return await fsp.readdir(dir, { withFileTypes: true });
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
