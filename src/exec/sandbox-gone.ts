/**
 * Whether every process of a killed command is gone before the check after it (what it left in
 * the workspace) runs: a process still running could create a `.git` entry once the check is
 * done, which the next command's check would take for the user's.
 *
 * The command's process group is waited for first (`spawn.ts`): bwrap's init in the sandbox's
 * PID namespace belongs to it, and the kernel reaps that init only once every other process of
 * the namespace is gone, those that left the group (`setsid`) included. Where the command has a
 * cgroup, its processes are also waited for there, each SIGKILLed, until the group is empty.
 */
import { readFileSync } from "node:fs";
import { errorCode } from "../error-code.ts";

const POLL_MS = 10;

/**
 * SIGKILLs what is left in the cgroups whose process lists are `files` until none is left;
 * false when one is still there after `withinMs`. True at once without files.
 */
export async function cgroupsEmptied(files: readonly string[], withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const lists = files.map(pidsIn);
    // A group dsh cannot read is not known to be empty.
    if (lists.includes(undefined)) return false;
    const left = lists.flatMap((pids) => pids ?? []);
    if (left.length === 0) return true;
    for (const pid of left) kill(pid);
    if (performance.now() >= deadline) return false;
    await Bun.sleep(POLL_MS);
  }
}

/** The pids listed in `file`; none for a group that is gone, undefined when it cannot be read. */
function pidsIn(file: string): number[] | undefined {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
  } catch (error) {
    return errorCode(error) === "ENOENT" ? [] : undefined;
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone meanwhile.
  }
}
