/**
 * What the backends share: a backend that refuses every command, one walk per workspace, and
 * the refusal of a workspace where a command left what dsh could not undo.
 */
import { lstatSync } from "node:fs";
import { InvalidInputError } from "../errors.ts";
import { isWithin } from "../paths.ts";
import type { Logger } from "../log.ts";
import { checkAfterCommand } from "./after-command.ts";
import type { Backend } from "./backend.ts";
import type { DirCalls } from "./dir-calls.ts";
import type { DirWatch, DirWatcher } from "./dir-watch.ts";
import { SandboxUnavailableError } from "./errors.ts";
import type { GitEntryCache, WalkLimits, WalkOptions } from "./git-entries.ts";
import { loadDirCalls } from "./load-dir-calls.ts";
import type { SandboxStatus } from "./types.ts";
import type { WorkspaceProtection } from "./workspace-guards.ts";

/** A backend whose every wrap throws `SandboxUnavailableError` with `status`. */
export function unavailableBackend(status: SandboxStatus): Backend {
  return {
    status,
    view() {
      throw new SandboxUnavailableError(status);
    },
    close() {},
  };
}

/** How each workspace is walked: one listing cache, and one watch where there is one, each. */
export interface Walks {
  of(workspace: string): WalkOptions;
  /** Ends every watch. */
  close(): void;
}

/** How each workspace is walked: the same calls and limits, one listing cache per workspace. */
export function walksByWorkspace(
  calls: DirCalls,
  limits: WalkLimits | undefined,
  watcher?: DirWatcher,
): Walks {
  const byWorkspace = new Map<string, WalkOptions>();
  const watches: DirWatch[] = [];
  return {
    of(workspace) {
      let walk = byWorkspace.get(workspace);
      if (walk === undefined) {
        // Made once, at the first walk: undefined then means none for this workspace.
        let made: { watch: DirWatch | undefined } | undefined;
        const watch = (rootFd: number, rootDev: bigint) => {
          if (made === undefined) {
            made = { watch: watcher?.(rootFd, rootDev) };
            if (made.watch !== undefined) watches.push(made.watch);
          }
          return made.watch;
        };
        walk = { calls, limits, cache: new Map() as GitEntryCache, watch };
        byWorkspace.set(workspace, walk);
      }
      return walk;
    },
    close() {
      for (const watch of watches.splice(0)) watch.close();
      byWorkspace.clear();
    },
  };
}

/** The directory calls, or why there are none. */
export async function callsOrFailure(): Promise<DirCalls | string> {
  try {
    return await loadDirCalls();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Refuses added directories (`extras`) that would undo another root's protections: one inside
 * or around another root (its bind would cover the protections set up in the other), one in a
 * git directory, or one at or inside a directory dsh protects (its own configuration). All are
 * realpaths.
 */
export function refuseOverlappingRoots(
  workspace: string,
  extras: readonly string[],
  protectedDirs: readonly string[],
): void {
  const roots = [workspace, ...extras];
  for (const extra of extras) {
    const other = roots.find(
      (root) => root !== extra && (isWithin(root, extra) || isWithin(extra, root)),
    );
    if (other !== undefined) {
      throw new InvalidInputError(
        `the added directory ${extra} lies inside or around ${other}: a session's directories ` +
          "cannot overlap (open the session in the outer one instead)",
        { directory: extra },
      );
    }
    if (extra.split("/").some((part) => part.toLowerCase() === ".git")) {
      throw new InvalidInputError(`the added directory ${extra} lies in a git directory`, {
        directory: extra,
      });
    }
    const guarded = protectedDirs.find((dir) => isWithin(dir, extra));
    if (guarded !== undefined) {
      throw new InvalidInputError(
        `the added directory ${extra} lies in ${guarded}, which commands may not write`,
        { directory: extra },
      );
    }
  }
}

/** Refuses a workspace that holds, or is, something a command left that dsh could not undo. */
export function refuseUnsafe(unsafe: ReadonlySet<string>, workspace: string): void {
  for (const path of unsafe) {
    // A directory inside an unchecked workspace (or inside what could not be removed) is as
    // unchecked as the rest of it.
    if (isWithin(path, workspace)) {
      throw new InvalidInputError(
        `dsh could not check all of ${workspace} for git repositories after an earlier command, ` +
          "or could not remove one it found (the error then says which); it runs no more " +
          `sandboxed commands there: look for .git entries you did not make (find ${workspace} ` +
          "-name .git), remove them, then start dsh again",
        { workspace },
      );
    }
    if (isWithin(workspace, path) && lstatSync(path, { throwIfNoEntry: false }) !== undefined) {
      throw new InvalidInputError(
        `${path} was created by a sandboxed command and dsh could not remove it; git may run ` +
          "commands from it: remove it, then run the command again",
        { path },
      );
    }
  }
}

/**
 * The check after a `workspace-write` command, or several (`after-command.ts`), with what it
 * could not undo added to `unsafe`; `settled` false when a process of the command may still
 * run. Returns the notes for the model; never throws.
 */
export function checkWorkspaceAfter(
  workspace: string,
  protection: WorkspaceProtection | readonly WorkspaceProtection[],
  logger: Logger,
  walk: WalkOptions,
  unsafe: Set<string>,
  settled = true,
): string[] {
  try {
    const after = checkAfterCommand(workspace, protection, logger, walk, settled);
    for (const path of after.unsafe) unsafe.add(path);
    return after.notes;
  } catch (error) {
    // A check that could not finish leaves the workspace unchecked: later commands are refused.
    unsafe.add(workspace);
    logger.error("the check after a command failed; no more sandboxed commands run there", {
      workspace,
      error,
    });
    return [
      `[dsh could not check ${workspace} after the command; it refuses further sandboxed commands there until it is started again]`,
    ];
  }
}
