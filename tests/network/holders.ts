/**
 * The network holders of the test process's unprivileged user (`support/unprivileged.ts`):
 * that user's live processes named `cat` (a holder waits as `cat`; the suites run nothing
 * else of that name as that user), or still the holder's shell, which dsh knows of from the
 * line it prints just before it becomes `cat`.
 */
import { readFileSync, readdirSync } from "node:fs";
import { UNPRIVILEGED_ID } from "../support/unprivileged.ts";

/** The pids of the unprivileged user's holders, one a holder. */
export function holders(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
      const state = /^State:\s+(\S)/m.exec(status)?.[1];
      if (uid !== String(UNPRIVILEGED_ID) || state === "Z") continue;
      const name = /^Name:\s+(.*)$/m.exec(status)?.[1];
      if (name === "cat" || (name === "sh" && isHolderShell(entry))) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** The shell a holder starts as: `sh -c 'echo "$$"; exec cat'` (`exec/network-holder.ts`). */
function isHolderShell(pid: string): boolean {
  const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  return argv[1] === "-c" && argv[2] === 'echo "$$"; exec cat';
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
