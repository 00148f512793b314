/**
 * The network holders of the test process's unprivileged user (`support/unprivileged.ts`):
 * that user's live processes named `cat` (a holder waits as `cat`; the suites run nothing
 * else of that name as that user).
 */
import { readFileSync, readdirSync } from "node:fs";
import { UNPRIVILEGED_ID } from "../support/unprivileged.ts";

/** The holders of the unprivileged user's sessions: its processes that are `cat`. */
export function holders(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
      const state = /^State:\s+(\S)/m.exec(status)?.[1];
      if (uid === String(UNPRIVILEGED_ID) && state !== "Z" && /^Name:\s+cat$/m.test(status)) {
        found.push(Number(entry));
      }
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Waits until the holders are exactly `count`, for at most 10 s; returns the last count. */
export async function holdersBecome(count: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  let now = holders().length;
  while (now !== count && Date.now() < deadline) {
    await Bun.sleep(25);
    now = holders().length;
  }
  return now;
}
