/**
 * Killing a whole process group. Commands are spawned with `detached: true`, so the shell's
 * pid is also its group id and `kill(-pid)` reaches every descendant that stayed in the group
 * (Bun's own timeout kills only the direct child).
 */

const POLL_MS = 20;

/** Sends `signal` to the group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    // EPERM means a member exists that we may not signal: the group is still there.
    return error instanceof Error && "code" in error && error.code === "EPERM";
  }
}

/**
 * Resolves true once no process of the group is left (reaped, not merely signalled), or
 * false after `withinMs`. There is no event for the death of a process we did not spawn,
 * so this polls.
 */
export async function waitGroupGone(pgid: number, withinMs: number): Promise<boolean> {
  const deadline = performance.now() + withinMs;
  while (signalGroup(pgid, 0)) {
    if (performance.now() >= deadline) return false;
    await Bun.sleep(POLL_MS);
  }
  return true;
}

/**
 * SIGTERM to the group, SIGKILL after `graceMs` if anything is left, then waits (bounded)
 * until the group is gone. Safe to call when the group is already empty.
 */
export async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, "SIGTERM")) return;
  if (await waitGroupGone(pgid, graceMs)) return;
  signalGroup(pgid, "SIGKILL");
  await waitGroupGone(pgid, Math.max(graceMs, 2000));
}

/**
 * SIGKILLs every group in `pgids` and blocks until all are gone or `withinMs` passed. For
 * `process.on("exit")`, where nothing asynchronous runs any more; true when all are gone.
 */
export function killGroupsSync(pgids: Iterable<number>, withinMs: number): boolean {
  const left = [...pgids].filter((pgid) => signalGroup(pgid, "SIGKILL"));
  const deadline = performance.now() + withinMs;
  for (;;) {
    const alive = left.filter((pgid) => signalGroup(pgid, 0));
    if (alive.length === 0) return true;
    if (performance.now() >= deadline) return false;
    Bun.sleepSync(5);
  }
}
