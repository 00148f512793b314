/**
 * Every process dsh starts that must not outlive it (commands, MCP stdio servers, the sandbox
 * probe) starts through here: under the supervisor chain (`supervisor.ts`), so the kernel ends
 * its whole group when dsh dies, SIGKILL included; and, where that chain is missing, spawned
 * as given, with one warning and a group kill when dsh exits without stopping it.
 */
import type { Logger } from "../log.ts";
import { killGroupsSync } from "./process-group.ts";
import { locateSupervisor, superviseArgv } from "./supervisor.ts";
import type { Supervisor } from "./supervisor.ts";

/** How long the exit-time kill waits for the held groups to go. */
const EXIT_KILL_WITHIN_MS = 2_000;

// What the chain needs is a fact of the machine: found and tried once per process, at the
// first spawn, off the start-up path.
let located: { readonly supervisor: Supervisor | undefined } | undefined;

/**
 * The supervisor chain of this process, or undefined where it is missing or fails (then a
 * warning is logged, once): spawned processes can then outlive a dsh that is SIGKILLed.
 */
export function sharedSupervisor(logger: Logger): Supervisor | undefined {
  if (located !== undefined) return located.supervisor;
  located = { supervisor: locateSupervisor(process.platform) };
  if (located.supervisor === undefined && process.platform === "linux") {
    logger.warn(
      "setpriv (with --pdeathsig), sh or timeout is missing or fails: a command or MCP server " +
        "can outlive a dsh that is killed (SIGKILL)",
    );
  }
  return located.supervisor;
}

export interface TieOptions {
  readonly logger: Logger;
  /** Whether stderr joins stdout (commands) or stays apart (servers, probes). */
  readonly mergeStderr: boolean;
  /** `cgroup.procs` files the process joins before anything of `argv` exists. */
  readonly cgroupProcs?: readonly string[];
}

/**
 * `argv` tied to dsh's lifetime: under the supervisor chain where there is one (the spawned
 * pid ends as `timeout`, the leader of the group), else `argv` unchanged (stderr not merged
 * then; spawn it `detached` for a group of its own).
 */
export function tiedArgv(argv: readonly string[], options: TieOptions): string[] {
  const supervisor = sharedSupervisor(options.logger);
  if (supervisor === undefined) return [...argv];
  return superviseArgv(supervisor, process.pid, argv, {
    cgroupProcs: options.cgroupProcs,
    mergeStderr: options.mergeStderr,
  });
}

const held = new Set<number>();
const killHeld = () => {
  killGroupsSync(held, EXIT_KILL_WITHIN_MS);
};

/**
 * Holds the process group `pgid` until the returned release: a dsh that exits meanwhile
 * without stopping it (nothing asynchronous runs in `exit`) SIGKILLs it first.
 */
export function holdUntilExit(pgid: number): () => void {
  if (held.size === 0) process.on("exit", killHeld);
  held.add(pgid);
  return () => {
    if (!held.delete(pgid)) return;
    if (held.size === 0) process.off("exit", killHeld);
  };
}
