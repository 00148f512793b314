/**
 * Resource bounds of sandboxed commands: how many processes (threads included) one command
 * may run, and how much memory. They are applied at two levels:
 *
 * - rlimits, set by `prlimit` inside the sandbox, i.e. after bwrap made the command's user
 *   namespace: RLIMIT_NPROC then counts the command's own processes only (the kernel counts
 *   per user namespace), not every process of the user. RLIMIT_DATA bounds each process's
 *   writable memory, where RLIMIT_AS would also refuse the large address reservations of
 *   runtimes such as Bun, the JVM or Go. The kernel does not apply RLIMIT_NPROC to root's
 *   processes, so as root the process bound needs the cgroup below; there the supervisor
 *   chain's shell sets both rlimits before bwrap instead, sparing each command an exec.
 * - a cgroup of its own per command where one can be made (`cgroup.ts`): `pids.max` and a
 *   memory limit on the whole command, which also say afterwards which limit it ran into.
 */
import * as v from "valibot";
import { DEFAULT_WALK_LIMITS, type WalkLimits } from "./walk-limits.ts";
import { findExecutable } from "./locate.ts";

/** The `[limits]` table of the config file. */
export const LimitsConfig = v.strictObject({
  /** Processes and threads one sandboxed command may run at once. */
  processes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(16), v.maxValue(4_194_304))),
  /** Memory in MiB: per process always, for the whole command where a cgroup can be made. */
  memory_mb: v.optional(v.pipe(v.number(), v.integer(), v.minValue(64), v.maxValue(1 << 30))),
  /** Entries the walk for `.git` entries visits at most, before and after each command. */
  walk_entries: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /** Milliseconds that walk may take at most. */
  walk_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
});
export type LimitsConfig = v.InferOutput<typeof LimitsConfig>;

/** The bounds in effect for each sandboxed command. */
export interface CommandLimits {
  readonly processes: number;
  readonly memoryBytes: number;
}

/** The default process bound: room for parallel builds, far below any kernel's pid_max. */
export const DEFAULT_PROCESSES = 2048;

/** The bounds from the config, with defaults (memory: three quarters of `totalMemory`). */
export function commandLimits(
  config: LimitsConfig | undefined,
  totalMemory: number,
): CommandLimits {
  const mib = 1024 * 1024;
  const memoryMb = config?.memory_mb ?? Math.max(64, Math.floor((totalMemory * 0.75) / mib));
  return { processes: config?.processes ?? DEFAULT_PROCESSES, memoryBytes: memoryMb * mib };
}

/** The walk's bounds from the config, with defaults. */
export function walkLimits(config: LimitsConfig | undefined): WalkLimits {
  return {
    entries: config?.walk_entries ?? DEFAULT_WALK_LIMITS.entries,
    ms: config?.walk_ms ?? DEFAULT_WALK_LIMITS.ms,
  };
}

/**
 * `limits` lowered to the hard limits dsh itself runs under (`procLimits`: the text of
 * `/proc/self/limits`), which commands inherit: prlimit may lower a hard limit, never raise
 * it, so a bound above it would fail every command instead of bounding it.
 */
export function withinHardLimits(limits: CommandLimits, procLimits: string): CommandLimits {
  const hard = (name: string) => {
    const match = new RegExp(`^${name}\\s+\\S+\\s+(\\d+)\\s`, "m").exec(procLimits);
    return match === null ? Number.POSITIVE_INFINITY : Number(match[1]);
  };
  return {
    processes: Math.min(limits.processes, hard("Max processes")),
    memoryBytes: Math.min(limits.memoryBytes, hard("Max data size")),
  };
}

/** util-linux's prlimit in the system directories, or undefined. */
export function locatePrlimit(): string | undefined {
  return findExecutable("prlimit", ["/usr/bin/prlimit", "/bin/prlimit"], undefined);
}

/** `argv` under the rlimits of `limits` (soft and hard, so the command cannot raise them). */
export function limitArgv(
  prlimit: string,
  limits: CommandLimits,
  argv: readonly string[],
): string[] {
  return [prlimit, `--nproc=${limits.processes}`, `--data=${limits.memoryBytes}`, "--", ...argv];
}

/**
 * The shell running `command` with at most `processes` processes of the user (soft and hard
 * RLIMIT_NPROC, lowered to the hard limit dsh has), stderr joined to stdout: for sandboxes
 * without prlimit (macOS). There the kernel counts every process of the user, not only the
 * command's, and bounds no memory.
 */
export function ulimitArgv(shell: string, processes: number, command: string): string[] {
  // `hard` is bash's name for the hard limit in force: no subshell, which could not fork there.
  const script = [
    'ulimit -u "$2" 2>/dev/null || ulimit -u hard || exit 125',
    'exec "$0" -c -- "$1" 2>&1',
  ].join("; ");
  return [shell, "-c", script, shell, command, String(processes)];
}

/** Which bound a command ran into. */
export type LimitHit = "processes" | "memory";

// What the usual tools print when fork or an allocation fails under an rlimit.
const PROCESS_FAILURE = /fork: (retry: )?Resource temporarily unavailable|Cannot fork/i;
const MEMORY_FAILURE = /cannot allocate|out of memory|memory exhausted|MemoryError|std::bad_alloc/i;

/**
 * A best guess at the bound a failed command ran into, from its output, where no cgroup can
 * tell for sure: fork and allocations then fail with errors the command itself reports.
 */
export function guessLimitHit(output: string): LimitHit | undefined {
  if (PROCESS_FAILURE.test(output)) return "processes";
  if (MEMORY_FAILURE.test(output)) return "memory";
  return undefined;
}
