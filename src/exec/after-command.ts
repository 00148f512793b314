/**
 * What the runner checks once a sandboxed command has ended: a `forbid`den path the command
 * created is removed, and so is every `.git` entry that did not exist before it (a nested
 * repository, a `gitdir:` file, a repository at the workspace's top), since git would run
 * what its config names on the user's next call. Each removal is a note for the model; a
 * removal that fails is an error for the user, and the guards refuse later commands while
 * such a path exists (`commondir`) or the walk finds it again.
 */
import { lstatSync, rmSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { errorMessage } from "../errors.ts";
import type { Logger } from "../log.ts";
import { findGitEntries } from "./git-entries.ts";
import type { GitEntryCache, WalkLimits } from "./git-entries.ts";
import type { WorkspaceProtection } from "./workspace-guards.ts";

/** The outcome of the check: notes for the model, and what is left that dsh could not undo. */
export interface AfterCommand {
  readonly notes: string[];
  /**
   * Paths a command created that are still there (removal failed), or the workspace itself
   * when it could not be walked: later commands there are refused while they exist.
   */
  readonly unsafe: string[];
}

/** Removes what the command may not leave behind. Never throws. */
export function checkAfterCommand(
  workspace: string,
  protection: WorkspaceProtection,
  logger: Logger,
  cache?: GitEntryCache,
  limits?: WalkLimits,
): AfterCommand {
  const result: AfterCommand = { notes: [], unsafe: [] };
  for (const guard of protection.guards) {
    if (guard.type === "forbid") remove(workspace, guard.path, FORBIDDEN, logger, result);
  }
  let entries: string[];
  try {
    entries = findGitEntries(workspace, limits, cache);
  } catch (error) {
    logger.error("the workspace could not be checked for new git repositories", { error });
    result.notes.push(
      `[dsh could not check the workspace for git repositories the command created ` +
        `(${errorMessage(error)}); it refuses further sandboxed commands here until dsh is ` +
        "started again]",
    );
    result.unsafe.push(workspace);
    return result;
  }
  const before = new Set(protection.gitEntries);
  for (const entry of entries) {
    if (!before.has(entry)) remove(workspace, entry, NEW_REPOSITORY, logger, result);
  }
  return result;
}

const FORBIDDEN =
  "sandboxed commands may not create it (git or dsh would read it as configuration)";
const NEW_REPOSITORY =
  "sandboxed commands may not create git repositories (git would run commands its config " +
  "names on the user's next git call)";

function remove(
  workspace: string,
  path: string,
  why: string,
  logger: Logger,
  result: AfterCommand,
): void {
  // Deleting through a link could reach outside the workspace: a link on the way (which only
  // a command can have made, the guards refuse existing ones) is what goes instead.
  const target = linkOnTheWay(workspace, path) ?? path;
  if (lstatSync(target, { throwIfNoEntry: false }) === undefined) return;
  try {
    rmSync(target, { recursive: true, force: true });
    result.notes.push(`[dsh removed ${target}: ${why}; ask the user to do it]`);
  } catch (error) {
    logger.error(
      `a sandboxed command created ${target} and dsh could not remove it: git or dsh may read ` +
        "it as configuration; remove it before running git or dsh again",
      { path: target, error },
    );
    result.notes.push(
      `[dsh could not remove ${target}, which a sandboxed command created; dsh refuses further ` +
        "sandboxed commands in this workspace until the user removes it]",
    );
    result.unsafe.push(target);
  }
}

/** The first symbolic link among the components of `path` below `workspace`, if any. */
function linkOnTheWay(workspace: string, path: string): string | undefined {
  const parts = relative(workspace, path).split(sep);
  for (let i = 1; i <= parts.length; i++) {
    const step = join(workspace, ...parts.slice(0, i));
    const stat = lstatSync(step, { throwIfNoEntry: false });
    if (stat === undefined) return undefined;
    if (stat.isSymbolicLink()) return step;
  }
  return undefined;
}
