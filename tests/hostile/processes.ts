/**
 * Finding a command's processes from outside: a unique token in the command text appears in
 * the argv of every process of the chain (supervisor, bwrap, shells) and of the sleepers.
 */
import { removeStaleCgroups } from "../../src/exec/cgroup.ts";
import { processArgvs } from "../exec/helpers.ts";

/** Room for a loaded machine; only a killed dsh leaves its command a moment to go at all. */
export const GONE_WITHIN_MS = 10_000;

/**
 * A token no other process has in its argv (a fractional sleep duration); `cleanUp` SIGKILLs
 * the processes that still carry one, so a failure leaks nothing.
 */
export function trackedToken(): string {
  const token = `1000.${Math.floor(Math.random() * 1e9)}`;
  tokens.push(token);
  return token;
}

const tokens: string[] = [];

/**
 * For each test file's `afterAll`: SIGKILLs what still carries a tracked token, and removes
 * the cgroups a SIGKILLed dsh left (as the next dsh would), so nothing is left behind.
 */
export async function cleanUp(): Promise<void> {
  for (const token of tokens) for (const { pid } of processesWith(token)) killQuietly(pid);
  await removeStaleCgroups();
}

/** Processes whose argv mentions `token` (from /proc, or `ps` where there is none). */
export function processesWith(token: string): { pid: number; argv: string[] }[] {
  return processArgvs().filter(({ argv }) => argv.some((arg) => arg.includes(token)));
}

/** How many `sleep <token>` processes run (exec'd, not only forked). */
export function sleepers(token: string): number {
  return processesWith(token).filter(({ argv }) => argv[0] === "sleep" && argv[1] === token).length;
}

/** Resolves once `ready()` holds; rejects after `withinMs` naming `what`. */
export async function until(what: string, ready: () => boolean, withinMs: number): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (!ready()) {
    if (performance.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    // /proc has no change event: poll it.
    await Bun.sleep(2);
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}
