/**
 * The `workspace-write` commands running in each root, by the protections set up before each
 * (which hold the `.git` entries found then). A command that starts in a root where others
 * still run (a background command, another session's) first has the check after each of them
 * run so far (`after-command.ts`): a `.git` entry or another path git would read as config that
 * one of them created since it started is removed then. Otherwise the new command's walk would
 * take it for one that was there before, its own check would keep it, and until the command that
 * made it ended, the user's git (and dsh's checkpoints) would read it on the host.
 *
 * Where no command runs in the root, what the walk finds is the user's, as before (a `git init`
 * outside dsh between commands).
 */
import type { Logger } from "../log.ts";
import { isWithin } from "../paths.ts";
import { type Walks, checkWorkspaceAfter } from "./backend-parts.ts";
import type { WorkspaceProtection } from "./workspace-guards.ts";

export interface RunningCommands {
  /** Registers one command's protections, one per root; the result unregisters them. */
  add(roots: readonly string[], protections: readonly WorkspaceProtection[]): () => void;
  /**
   * The checks so far of the commands running in `root` or in a root above or below it, with
   * what could not be undone added to `unsafe`: notes for the model. Never throws.
   */
  check(root: string, logger: Logger, walks: Walks, unsafe: Set<string>): string[];
}

export function runningCommands(): RunningCommands {
  const byRoot = new Map<string, Set<WorkspaceProtection>>();
  return {
    add(roots, protections) {
      const added: [Set<WorkspaceProtection>, WorkspaceProtection][] = [];
      for (const [i, root] of roots.entries()) {
        const protection = protections[i];
        if (protection === undefined) continue;
        let running = byRoot.get(root);
        if (running === undefined) {
          running = new Set();
          byRoot.set(root, running);
        }
        running.add(protection);
        added.push([running, protection]);
      }
      return () => {
        for (const [running, protection] of added) running.delete(protection);
        for (const root of roots) if (byRoot.get(root)?.size === 0) byRoot.delete(root);
      };
    },
    check(root, logger, walks, unsafe) {
      // Commands running in this root, and in a root above or below it (another session's in
      // the project around this one, or in a package inside it): what they made can lie here.
      const notes = [...byRoot]
        .filter(([other]) => isWithin(other, root) || isWithin(root, other))
        // One walk of each root for all the commands running there.
        .flatMap(([other, running]) =>
          checkWorkspaceAfter(other, [...running], logger, walks.of(other), unsafe),
        );
      if (notes.length === 0) return [];
      logger.warn(
        `a sandboxed command still running in ${root} (a background command, or another ` +
          "session's) created what git or dsh would read as configuration; dsh removed it " +
          "before the next command started there",
        { workspace: root, notes },
      );
      return [
        "[a command still running here (a background command) created what follows; dsh " +
          "removed it before this command started]",
        ...notes,
      ];
    },
  };
}
