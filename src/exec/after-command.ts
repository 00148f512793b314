/**
 * What the runner checks once a sandboxed command has ended: a `forbid`den path the command
 * created is removed, and so is every `.git` entry that did not exist before it (a nested
 * repository, a `gitdir:` file, a repository at the workspace's top), since git would run
 * what its config names on the user's next call. Removal goes through directory descriptors
 * (`remove-beneath.ts`), so nothing outside the workspace can be reached.
 *
 * The check fails closed: whatever the walk found is removed even when it could not check the
 * whole workspace, and then the user is told, and the guards refuse later commands there, as
 * they do while a path dsh could not remove is still there. So it does when a process of the
 * command may still run (`sandbox-gone.ts`): it could create an entry after the walk, which the
 * next command's walk would take for one that was there before.
 */
import { basename } from "node:path";
import type { Logger } from "../log.ts";
import { GIT_SEQUENCER_STATE } from "../permission/git-repository.ts";
import { bytePath, partsBelow } from "./byte-paths.ts";
import type { BytePath } from "./byte-paths.ts";
import { walkGitEntries } from "./git-entries.ts";
import type { WalkOptions } from "./git-entries.ts";
import { removeBeneath } from "./remove-beneath.ts";
import type { WorkspaceProtection } from "./workspace-guards.ts";

/** The outcome of the check: notes for the model, and what is left that dsh could not undo. */
export interface AfterCommand {
  readonly notes: string[];
  /**
   * Paths a command created that are still there (removal failed), or the workspace itself
   * when it could not be checked whole (or what is left has no path): later commands there are
   * refused while they exist.
   */
  readonly unsafe: string[];
}

/**
 * Removes what the commands of `protections` (one, or several running in the workspace at
 * once, checked over one walk) may not leave behind; `settled` false when a process of them
 * may still run. Never throws.
 */
export function checkAfterCommand(
  workspace: string,
  protections: WorkspaceProtection | readonly WorkspaceProtection[],
  logger: Logger,
  walk: WalkOptions,
  settled = true,
): AfterCommand {
  const result: AfterCommand = { notes: [], unsafe: [] };
  const each = Array.isArray(protections) ? protections : [protections];
  for (const guard of each.flatMap((protection) => protection.guards)) {
    if (guard.type !== "forbid") continue;
    const sequencer = GIT_SEQUENCER_STATE.includes(basename(guard.path));
    const path = bytePath(workspace, partsBelow(workspace, guard.path));
    if (remove(workspace, path, sequencer ? SEQUENCER : FORBIDDEN, walk, logger, result)) {
      if (sequencer) logger.warn(`${LEFT_SEQUENCER}: ${path.path}`);
    }
  }
  const found = walkGitEntries(workspace, walk);
  // An entry goes when one of the commands did not have it before it started.
  const befores = each.map((protection) => new Set(protection.gitEntries));
  for (const entry of found.entries) {
    if (befores.some((before) => !before.has(entry.key))) {
      remove(workspace, entry, NEW_REPOSITORY, walk, logger, result);
    }
  }
  if (found.unchecked.length > 0) {
    const reasons = found.unchecked.map((part) => `${part.path}: ${part.reason}`).join("; ");
    logger.error(
      `dsh could not check all of ${workspace} for git repositories a sandboxed command may ` +
        `have created (${reasons}); it removed those it found. Run no git there until you have ` +
        `looked for .git entries you did not make (find ${workspace} -name .git) and removed ` +
        "them; dsh runs no more sandboxed commands there until it is started again",
      { workspace },
    );
    result.notes.push(
      `[dsh could not check all of the workspace for git repositories the command created ` +
        `(${reasons}); it removed those it found, and refuses further sandboxed commands here ` +
        "until the user has checked the workspace and started dsh again]",
    );
    result.unsafe.push(workspace);
  }
  if (!settled) {
    logger.error(
      `a process of a sandboxed command in ${workspace} was still running after dsh killed ` +
        "the command, and could create git repositories after dsh checked; dsh removed those " +
        `it found. Run no git there until you have looked for .git entries you did not make ` +
        `(find ${workspace} -name .git) and removed them; dsh runs no more sandboxed commands ` +
        "there until it is started again",
      { workspace },
    );
    result.notes.push(
      "[a process of the command was still running after it was killed, so dsh could not " +
        "check the workspace for git repositories it may create; it refuses further sandboxed " +
        "commands here until the user has checked the workspace and started dsh again]",
    );
    result.unsafe.push(workspace);
  }
  return result;
}

const FORBIDDEN =
  "sandboxed commands may not create it (git or dsh would read it as configuration)";
const SEQUENCER =
  "sandboxed commands may not leave a rebase, cherry-pick or revert in progress (git would " +
  "run its todo list, exec lines included, on the user's next git rebase --continue); HEAD " +
  "stays where the command left it";
const LEFT_SEQUENCER =
  "a sandboxed command left a rebase, cherry-pick or revert in progress, and dsh removed its " +
  "state (its todo list would run on your next git rebase --continue); HEAD stays where the " +
  "command left it";
const NEW_REPOSITORY =
  "sandboxed commands may not create git repositories (git would run commands its config " +
  "names on the user's next git call)";

/** Removes `path`; true when something went. */
function remove(
  workspace: string,
  path: BytePath,
  why: string,
  walk: WalkOptions,
  logger: Logger,
  result: AfterCommand,
): boolean {
  const removal = removeBeneath(walk.calls, workspace, path.parts, walk.openDirs);
  if (removal.type === "absent") return false;
  if (removal.type === "removed") {
    // A link on the way (which only a command can have made) is what goes instead.
    const target = bytePath(workspace, removal.parts).path;
    result.notes.push(`[dsh removed ${target}: ${why}; ask the user to do it]`);
    return true;
  }
  logger.error(
    `a sandboxed command created ${path.path} and dsh could not remove it ` +
      `(${removal.reason}): git or dsh may read it as configuration; remove it before running ` +
      "git or dsh again",
    { path: path.path },
  );
  result.notes.push(
    `[dsh could not remove ${path.path}, which a sandboxed command created; dsh refuses ` +
      "further sandboxed commands in this workspace until the user removes it]",
  );
  result.unsafe.push(path.nameable ? path.path : workspace);
  return false;
}
