/**
 * Killing a whole process group. Commands are spawned with `detached: true`, so the shell's
 * pid is also its group id and `kill(-pid)` reaches every descendant that stayed in the group
 * (Bun's own timeout kills only the direct child). On Windows the "group" of a pid is the job
 * object it was put in when it started (`windows-job.ts`): any signal but 0 terminates it.
 */
import { readFileSync, readdirSync } from "node:fs";
import { errorCode } from "../error-code.ts";
import type { JobTable } from "./windows-job.ts";

const POLL_MS = 20;

let jobs: JobTable | undefined;

/** The job table Windows spawns adopt their processes into (set once, at the first spawn). */
export function useJobTable(table: JobTable): void {
  jobs = table;
}

/** Sends `signal` to the group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (process.platform === "win32") return signalJob(pgid, signal);
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    // EPERM means a member exists that we may not signal: the group is still there.
    return errorCode(error) === "EPERM";
  }
}

/**
 * Resolves true once no process of the group is left (reaped, not merely signalled), or
 * false after `withinMs`. There is no event for the death of a process we did not spawn,
 * so this polls.
 */
export async function waitGroupGone(pgid: number, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  while (groupAlive(pgid)) {
    if (performance.now() >= deadline) return false;
    await Bun.sleep(POLL_MS);
  }
  return true;
}

/**
 * SIGTERM to the group, SIGKILL after `graceMs` if anything is left, then waits until the
 * group is gone, at most `goneWithinMs` (`graceMs`, and 2 s at least, when absent). A `graceMs`
 * of 0 sends SIGKILL at once. Safe to call when the group is already empty. Resolves false when
 * a process of the group was still there at the end of the wait.
 */
export async function terminateGroup(
  pgid: number,
  graceMs: number,
  goneWithinMs = Math.max(graceMs, 2000),
): Promise<boolean> {
  if (graceMs > 0) {
    if (!signalGroup(pgid, "SIGTERM")) return true;
    if (await waitGroupGone(pgid, graceMs)) return true;
  }
  if (!signalGroup(pgid, "SIGKILL")) return true;
  return waitGroupGone(pgid, goneWithinMs);
}

/**
 * SIGKILLs every group in `pgids` and blocks until all are gone or `withinMs` passed. For
 * `process.on("exit")`, where nothing asynchronous runs any more; true when all are gone.
 */
export function killGroupsSync(pgids: Iterable<number>, withinMs: number): boolean {
  const left = [...pgids].filter((pgid) => signalGroup(pgid, "SIGKILL"));
  const deadline = performance.now() + withinMs;
  for (;;) {
    const alive = left.filter(groupAlive);
    if (alive.length === 0) return true;
    if (performance.now() >= deadline) return false;
    Bun.sleepSync(5);
  }
}

/**
 * True while a process of the group still runs. A member that died after its parent did is
 * reparented to init and stays a zombie (still in the group for `kill`) until init reaps it,
 * which some container inits do only every second or so: a zombie runs nothing, so it does
 * not count. Where there is no /proc, membership is all that can be seen.
 */
function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform === "win32") return true;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return true;
  }
  return entries.some((entry) => /^\d+$/.test(entry) && runsInGroup(entry, pgid));
}

function runsInGroup(pid: string, pgid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return false;
  }
  // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so split after it.
  const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(pgrp) === pgid && state !== "Z" && state !== "X";
}

/** `signalGroup` on Windows: by the pid's job, or the process alone when it has none. */
function signalJob(pid: number, signal: NodeJS.Signals | 0): boolean {
  if (jobs?.holds(pid) === true) {
    const alive = jobs.active(pid) > 0;
    if (alive && signal !== 0) jobs.terminate(pid);
    return alive;
  }
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
}
