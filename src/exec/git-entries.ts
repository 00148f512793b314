/**
 * Every `.git` entry (directory, `gitdir:` file or link) under a workspace. git enters any of
 * them (a gitlink in the index, an editor that lists nested repositories) and runs what their
 * config names, so the sandbox protects the ones that exist before a command and removes the
 * ones a command created. The walk is bounded: past its limits it throws, and the caller
 * refuses the command rather than trust a tree it could not check.
 */
import { readdirSync } from "node:fs";
import type { Dirent } from "node:fs";
import { join } from "node:path";
import { InvalidInputError } from "../errors.ts";

/** How much of a workspace one walk may visit. */
export interface WalkLimits {
  readonly entries: number;
  readonly ms: number;
}

export const DEFAULT_WALK_LIMITS: WalkLimits = { entries: 1_000_000, ms: 5_000 };

/** Thrown when a workspace is too large to check within the walk's limits. */
export class WorkspaceTooLargeError extends InvalidInputError {}

/**
 * The paths of all `.git` entries below `workspace` (itself included), without descending
 * into them or following links. Unreadable directories are skipped: a command cannot write
 * into them either. Throws `WorkspaceTooLargeError` past `limits`.
 */
export function findGitEntries(
  workspace: string,
  limits: WalkLimits = DEFAULT_WALK_LIMITS,
): string[] {
  const deadline = performance.now() + limits.ms;
  const found: string[] = [];
  const pending = [workspace];
  let visited = 0;
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    visited += entries.length;
    if (visited > limits.entries || performance.now() > deadline) {
      throw new WorkspaceTooLargeError(
        `${workspace} holds more than dsh can check for git repositories before and after a ` +
          `sandboxed command (${limits.entries} entries or ${limits.ms} ms); open a smaller ` +
          "directory as the project, or choose danger-full-access",
        { workspace },
      );
    }
    for (const entry of entries) {
      if (entry.name === ".git") found.push(join(dir, entry.name));
      else if (entry.isDirectory()) pending.push(join(dir, entry.name));
    }
  }
  return found.sort();
}
