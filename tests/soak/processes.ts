/**
 * Processes left behind: those whose command line holds a marker only one test's commands
 * carry. Read from `/proc`, so it sees processes the test never spawned itself (a sandboxed
 * command under bwrap, reparented to init once dsh is killed).
 */
import { readFileSync, readdirSync } from "node:fs";

/** Pids whose command line contains `marker`, other than this process. */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker)) pids.push(pid);
    } catch {
      // Gone while we looked.
    }
  }
  return pids;
}

/** Resolves once a process carrying `marker` runs; false when none did within `withinMs`. */
export async function appeared(marker: string, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    if (processesWith(marker).length > 0) return true;
    if (performance.now() >= deadline) return false;
    await Bun.sleep(10);
  }
}

/**
 * The processes still carrying `marker` once `withinMs` passed. A killed parent's children get
 * their death signal asynchronously and there is nothing to await for a process another one
 * spawned, so this looks again every few milliseconds until none is left or time is up.
 */
export async function leftAfter(marker: string, withinMs: number): Promise<number[]> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const left = processesWith(marker);
    if (left.length === 0 || performance.now() >= deadline) return left;
    await Bun.sleep(20);
  }
}
