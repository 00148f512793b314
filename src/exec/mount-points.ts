/**
 * Cleans up after the sandbox's protections. bwrap creates a mount point on the host for a
 * protected path that did not exist (an empty `.dsh/`, `.git/`, ...); once no running
 * command needs it, it is removed again if still empty. A `forbid` path a command created
 * anyway is deleted, and a note says so; when that fails the user is told (an error in the log),
 * and the guards refuse later commands while the path exists.
 */
import { lstatSync, readdirSync, rmdirSync, rmSync, unlinkSync } from "node:fs";
import type { Logger } from "../log.ts";
import type { Guard } from "./guards.ts";

export interface MountPointSweeper {
  /** Marks the guards of one starting command; the returned function ends it and returns notes. */
  hold(guards: readonly Guard[]): () => string[];
}

/** Creates a sweeper; counts are per runner, so concurrent commands never pull a mount away. */
export function createMountPointSweeper(logger: Logger): MountPointSweeper {
  const created = new Map<string, number>();
  return {
    hold(guards) {
      const held = guards.filter(
        (guard) =>
          guard.type === "block-dir" || guard.type === "block-file" || created.has(guard.path),
      );
      for (const guard of held) created.set(guard.path, (created.get(guard.path) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return [];
        released = true;
        for (const guard of held) {
          const count = (created.get(guard.path) ?? 1) - 1;
          if (count > 0) {
            created.set(guard.path, count);
            continue;
          }
          created.delete(guard.path);
          removeIfEmpty(guard.path, logger);
        }
        return guards
          .filter((guard) => guard.type === "forbid")
          .flatMap((guard) => removeForbidden(guard.path, logger));
      };
    },
  };
}

function removeIfEmpty(path: string, logger: Logger): void {
  try {
    const stat = lstatSync(path);
    if (stat.isDirectory() && readdirSync(path).length === 0) rmdirSync(path);
    else if (stat.isFile() && stat.size === 0) unlinkSync(path);
  } catch (error) {
    logger.debug("mount point left in place", { path, error });
  }
}

function removeForbidden(path: string, logger: Logger): string[] {
  try {
    lstatSync(path);
  } catch {
    return [];
  }
  try {
    rmSync(path, { recursive: true, force: true });
    return [`[dsh removed ${path}: sandboxed commands may not create it]`];
  } catch (error) {
    logger.error(
      `a sandboxed command created ${path} and dsh could not remove it: git would read its ` +
        "config and hooks from where it points; remove it before running git or dsh again",
      { path, error },
    );
    return [
      `[dsh could not remove ${path}, which a sandboxed command created; dsh refuses further ` +
        "sandboxed commands in this workspace until the user removes it]",
    ];
  }
}
