/**
 * The directory walk behind glob and grep: sorted, depth-bounded, never following symlinked
 * directories (no cycles, no escapes), skipping noisy directories and secret places
 * (credential stores, dsh's state directory; directories also by device and inode).
 */
import type { Dirent } from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { secretMatch } from "./credential-paths.ts";
import type { SecretSnapshot } from "./secret-identity.ts";

/** Directories skipped unless the search names them. */
export const NOISY_DIRS: readonly string[] = [".git", "node_modules"];

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
}

/**
 * Visits the files under `base` depth-first in name order. `visit` returns `"stop"` to end
 * the walk early. Unreadable directories are skipped. Throws only on abort.
 */
export async function walkFiles(
  base: string,
  options: WalkOptions,
  visit: (entry: WalkEntry) => Promise<"continue" | "stop"> | "continue" | "stop",
): Promise<WalkSummary> {
  let visited = 0;
  const pending: { dir: string; relative: string; depth: number }[] = [
    { dir: base, relative: "", depth: 1 },
  ];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    options.signal.throwIfAborted();
    const { dir, relative, depth } = next;
    const entries = await readSorted(dir);
    const subdirs: typeof pending = [];
    for (const entry of entries) {
      if (++visited > options.maxEntries) return { capped: true };
      const absolute = path.join(dir, entry.name);
      const rel = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (
          depth < options.maxDepth &&
          !options.skipDirs.has(entry.name) &&
          options.secrets.match(absolute) === undefined
        ) {
          subdirs.push({ dir: absolute, relative: rel, depth: depth + 1 });
        }
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      if (secretMatch(absolute, options.secrets.places) !== undefined) continue;
      if (
        (await visit({ absolute, relative: rel, isSymlink: entry.isSymbolicLink() })) === "stop"
      ) {
        return { capped: false };
      }
    }
    // Reversed so that popping yields subdirectories in name order.
    pending.push(...subdirs.reverse());
  }
  return { capped: false };
}

async function readSorted(dir: string): Promise<Dirent[]> {
  try {
    const entries = await fsp.readdir(dir, { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

/** The noisy directories a search does not name, and so skips. */
export function skippedDirs(...named: readonly (string | undefined)[]): ReadonlySet<string> {
  return new Set(NOISY_DIRS.filter((dir) => !named.some((text) => text?.includes(dir) === true)));
}
