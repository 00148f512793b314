/**
 * Every process dsh starts that must not outlive it (commands, MCP stdio servers, the sandbox
 * probe) starts through here (`tieToDsh`), so that it ends with dsh, SIGKILL included:
 *
 * - on Linux, under the supervisor chain (`supervisor.ts`): the kernel ends its whole group
 *   when dsh dies; where that chain is missing, it is spawned as given, with one warning;
 * - on macOS, behind a gate: `sh` waits on a pipe until dsh has told its watchdog
 *   (`watchdog.ts`) about the new process group, then execs the process; a dsh that dies
 *   before leaves the pipe at its end, and nothing starts. Sandboxed commands are also held
 *   by their sandbox, which no `setsid` leaves (`sandbox-sweep.ts`);
 * - on Windows, in a job object of its own that ends with dsh's handle (`windows-job.ts`).
 *
 * Everywhere a group is also killed when dsh exits without stopping it (`holdUntilExit`).
 */
import { closeSync, writeSync } from "node:fs";
import type { Logger } from "../log.ts";
import type { CommandLimits } from "./limits.ts";
import { killGroupsSync, useJobTable } from "./process-group.ts";
import { locateSupervisor, superviseArgv } from "./supervisor.ts";
import type { Supervisor } from "./supervisor.ts";
import { startWatchdog } from "./watchdog.ts";
import type { Watchdog } from "./watchdog.ts";
import { createJobTable, openKernel32 } from "./windows-job.ts";
import type { JobTable } from "./windows-job.ts";

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
  /** The files the process joins its cgroups through before anything of `argv` exists. */
  readonly cgroupProcs?: readonly string[];
  /** Rlimits the chain sets before anything of `argv` exists (`SuperviseOptions.rlimits`). */
  readonly rlimits?: CommandLimits;
  /** The descriptor the gate's pipe gets in the child: the first after the caller's own (3). */
  readonly gateFd?: number;
}

/** A spawn tied to dsh's lifetime: what to run, and what to do right after the spawn. */
export interface Tie {
  readonly argv: string[];
  /** What the spawn's stdio gets after the caller's own entries (the gate's pipe on macOS). */
  readonly stdio: readonly "pipe"[];
  /**
   * Call at once after the spawn (spawned `detached`, so its pid is its group): ties it to
   * dsh and lets it start. Returns the release, to call once its group is gone. Never throws.
   */
  started(proc: Spawned): () => void;
}

/** What `started` needs of the spawned process. */
export interface Spawned {
  readonly pid: number;
  readonly stdio: readonly (number | null)[];
}

/** `argv` tied to dsh's lifetime on this platform (see the module note). */
export async function tieToDsh(argv: readonly string[], options: TieOptions): Promise<Tie> {
  if (process.platform === "darwin") {
    return gatedTie(argv, options.gateFd ?? 3, sharedWatchdog(options.logger));
  }
  if (process.platform === "win32") return jobTie(argv, await sharedJobTable(options.logger));
  return { argv: tiedArgv(argv, options), stdio: [], started: () => () => {} };
}

let watchdog: Watchdog | undefined;

/** The watchdog of this process (macOS), started at its first message. */
export function sharedWatchdog(logger: Logger): Watchdog {
  watchdog ??= startWatchdog({ logger });
  return watchdog;
}

/** Waits for one line on the gate's descriptor, closes it, then runs the process. */
const gateScript = (fd: number) => `IFS= read -r _ <&${fd} || exit 125; exec ${fd}<&-; exec "$@"`;

/**
 * `argv` behind the gate on descriptor `fd`: it starts once `watchdog` holds its group (the
 * macOS tie; any platform with `sh` can run it).
 */
export function gatedTie(argv: readonly string[], fd: number, dog: Watchdog): Tie {
  return {
    argv: ["/bin/sh", "-c", gateScript(fd), "sh", ...argv],
    stdio: ["pipe"],
    started(proc) {
      dog.holdGroup(proc.pid);
      const gate = proc.stdio[fd];
      if (typeof gate === "number") {
        try {
          writeSync(gate, "\n");
          closeSync(gate);
        } catch {
          // The process is gone already: nothing to let start.
        }
      }
      return () => dog.releaseGroup(proc.pid);
    },
  };
}

let jobTable: Promise<JobTable | undefined> | undefined;

/** Windows' job table, loaded once (kernel32 through `bun:ffi`); undefined when it cannot be. */
function sharedJobTable(logger: Logger): Promise<JobTable | undefined> {
  jobTable ??= import("bun:ffi")
    .then((ffi) => {
      const table = createJobTable(openKernel32(ffi));
      useJobTable(table);
      return table;
    })
    .catch((error: unknown) => {
      logger.warn(
        "kernel32 cannot be reached through bun:ffi: a command's children can outlive a cancel, a timeout and dsh",
        { error },
      );
      return undefined;
    });
  return jobTable;
}

function jobTie(argv: readonly string[], table: JobTable | undefined): Tie {
  return {
    argv: [...argv],
    stdio: [],
    started(proc) {
      table?.adopt(proc.pid);
      return () => table?.close(proc.pid);
    },
  };
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
    rlimits: options.rlimits,
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
