/**
 * Guards for protected project configuration (`src/permission/project-config.ts`) in a
 * writable workspace: each entry that exists at the workspace's top, or at the top of a nested
 * repository, is bound read-only (its parents pinned, so it cannot be moved away); one missing
 * at the workspace's top gets a read-only placeholder at its first missing component
 * (`placeholders.ts`: `.cargo` itself when there is none), so that the command's write fails
 * and dsh never has to remove a file the user's editor may already have loaded. A missing one
 * in a nested repository is not blocked.
 */
import { lstatSync } from "node:fs";
import { dirname, join } from "node:path";
import { PROJECT_CONFIG } from "../permission/project-config.ts";
import type { ProjectConfigEntry } from "../permission/project-config.ts";
import { isWithin } from "../paths.ts";
import type { Mask } from "./guards.ts";

/** Makes a missing protected path as an empty directory or file; true when it exists then. */
export type MakePlaceholder = (path: string, type: "dir" | "file") => boolean;

/**
 * Calls `protect` for every entry of the list at `workspace` (made with `placeholder` first
 * when missing) and for every one that exists at each of `nestedRoots`. `protect` is the
 * workspace guards' own: it throws for a symlink on the way, since a link cannot be pinned.
 */
export function protectProjectConfig(
  workspace: string,
  nestedRoots: readonly string[],
  protect: (path: string) => void,
  placeholder: MakePlaceholder,
): void {
  // Placeholders made here stand for every entry below them (`.cargo` for both its configs).
  const made: string[] = [];
  const counted: MakePlaceholder = (path, type) => {
    made.push(path);
    return placeholder(path, type);
  };
  for (const entry of PROJECT_CONFIG) {
    const target = join(workspace, ...entry.path.split("/"));
    if (made.some((path) => isWithin(path, target))) continue;
    protectAtTop(workspace, entry, protect, counted);
  }
  for (const root of nestedRoots) {
    for (const entry of PROJECT_CONFIG) {
      const path = join(root, ...entry.path.split("/"));
      if (lstatOrUndefined(path) !== undefined) protect(path);
    }
  }
}

function protectAtTop(
  workspace: string,
  entry: ProjectConfigEntry,
  protect: (path: string) => void,
  placeholder: MakePlaceholder,
): void {
  const names = entry.path.split("/");
  let current = workspace;
  for (const [i, name] of names.entries()) {
    current = join(current, name);
    const last = i === names.length - 1;
    const stat = lstatOrUndefined(current);
    if (stat === undefined) {
      // The first missing component stands for the rest (a missing `.cargo` for its config).
      // Unmakable (a read-only parent), `protect` forbids it, to be removed if a command
      // makes it after all.
      placeholder(current, last ? entry.type : "dir");
      protect(current);
      return;
    }
    // A file where a directory of the entry belongs: kept, so it cannot become one.
    if (!last && stat.isFile()) {
      protect(current);
      return;
    }
  }
  protect(current);
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Every entry of the list at `workspace` and at each repository holding one of `gitEntries`,
 * existing or not, for a sandbox whose rules are path patterns (seatbelt).
 */
export function projectConfigMasks(workspace: string, gitEntries: readonly string[]): Mask[] {
  const roots = [...new Set([workspace, ...gitEntries.map(dirname)])];
  return roots.flatMap((root) =>
    PROJECT_CONFIG.map((entry) => ({
      type: entry.type,
      path: join(root, ...entry.path.split("/")),
    })),
  );
}
