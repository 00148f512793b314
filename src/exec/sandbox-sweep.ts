/**
 * Ends every process of one sandboxed command, wherever it went. A process group is not the
 * command: `set -m`, `setsid` and a double fork leave it, and without a PID namespace nothing
 * takes them along. A sandbox is: what runs in it stays in it. Each command's sandbox, and no
 * other, lets it write its own temp directory (`marker`), so its processes are those that may
 * write there and may not write beside it (an unsandboxed process, or one whose sandbox allows
 * every path, may write both). Those are SIGKILLed, round after round, until none is left:
 * a process forking meanwhile is found in the next round.
 */

/** What the sweep asks of the system (`darwin-calls.ts` on macOS). */
export interface ProcessCalls {
  /** Every pid of the machine now. */
  pids(): number[];
  /** The owner and state of `pid`; undefined when it is gone. */
  describe(pid: number): { readonly uid: number; readonly zombie: boolean } | undefined;
  /** Whether the sandbox of `pid` lets it create `path`. */
  mayWrite(pid: number, path: string): boolean;
}

export interface SweepOptions {
  readonly calls: ProcessCalls;
  /** Sends SIGKILL; `process.kill` when absent. */
  readonly kill?: (pid: number) => void;
  /** How long rounds go on before the sweep gives up. */
  readonly withinMs?: number;
  /** Pids never touched (dsh itself). */
  readonly spare?: readonly number[];
}

/** What a sweep did: the processes it killed, and how many were still there at its end. */
export interface Sweep {
  readonly killed: number;
  readonly left: number;
}

const ROUND_PAUSE_MS = 2;

/** The processes of the sandbox marked by `marker` now (live ones of this user). */
export function sandboxProcesses(marker: string, options: SweepOptions): number[] {
  const { calls } = options;
  const uid = process.getuid?.() ?? -1;
  const spare = new Set([process.pid, ...(options.spare ?? [])]);
  const beside = `${marker}.beside`;
  return calls.pids().filter((pid) => {
    if (pid <= 1 || spare.has(pid)) return false;
    const about = calls.describe(pid);
    if (about === undefined || about.zombie || about.uid !== uid) return false;
    return calls.mayWrite(pid, `${marker}/x`) && !calls.mayWrite(pid, beside);
  });
}

/** SIGKILLs the sandbox's processes until none is left or time runs out. Never throws. */
export function sweepSandbox(marker: string, options: SweepOptions): Sweep {
  const kill =
    options.kill ??
    ((pid: number) => {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone meanwhile.
      }
    });
  const deadline = performance.now() + (options.withinMs ?? 2_000);
  const killed = new Set<number>();
  for (;;) {
    let found: number[];
    try {
      found = sandboxProcesses(marker, options);
    } catch {
      return { killed: killed.size, left: 1 };
    }
    if (found.length === 0) return { killed: killed.size, left: 0 };
    for (const pid of found) {
      killed.add(pid);
      kill(pid);
    }
    if (performance.now() >= deadline) return { killed: killed.size, left: found.length };
    Bun.sleepSync(ROUND_PAUSE_MS);
  }
}
