/**
 * One child process from spawn to reaped group: its own process group, stdin at EOF, output
 * drained and capped, and a timeout, cancel or output flood ending the whole group with
 * SIGTERM then SIGKILL. When the shell exits, whatever it left running in its group goes too.
 */
import type { Logger } from "../log.ts";
import type { Tie } from "./lifetime.ts";
import { createOutputCollector } from "./output.ts";
import type { OutputLimits } from "./output.ts";
import { terminateGroup } from "./process-group.ts";
import { sandboxEnded } from "./sandbox-init.ts";
import type { CommandResult } from "./types.ts";

export interface SpawnLimits extends OutputLimits {
  /** Total bytes read after which the group is killed ("output limit"). */
  readonly hardLimitBytes: number;
  /** Time between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  /**
   * How long the group may take to be gone after its SIGKILL (a process with much memory to
   * free, or in a system call that must finish, exits late); `killGraceMs`, and 2 s at least,
   * when absent.
   */
  readonly goneWithinMs?: number;
}

export interface SpawnSpec {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Parent fds handed to the child as fd 3, 4, ... */
  readonly extraFds?: readonly number[];
  readonly timeoutMs: number;
  readonly limits: SpawnLimits;
  readonly signal: AbortSignal;
  readonly onOutput?: (text: string) => void;
  readonly logger: Logger;
  /**
   * Whether the group gets SIGTERM and the grace before SIGKILL. Not for bwrap: SIGTERM
   * ends bwrap itself at once, and with it the sandbox, except while the sandbox is still
   * being set up, when only SIGKILL of the group ends it.
   */
  readonly graceful: boolean;
  /** Holds the command's process group id from spawn until the group is gone. */
  readonly groups?: Set<number>;
  /** Runs the spawn itself, e.g. inside the command's network namespace. */
  readonly within?: <T extends { readonly pid: number }>(start: () => T) => T;
  /** How the command is tied to dsh's lifetime (`lifetime.ts`): `argv` is already its own. */
  readonly tie?: Tie;
  /**
   * The pid of the sandbox's init, as bwrap told it: once the command has exited, the group is
   * over as soon as that init is (`sandbox-init.ts`).
   */
  readonly sandboxInit?: () => number | undefined;
}

type StopReason = "timeout" | "cancel" | "output-limit";

/** The result of one spawn, and whether a process of its group outlived the wait for it. */
export interface SpawnResult extends CommandResult {
  /**
   * A process of the group was still there `goneWithinMs` after its SIGKILL: it may still
   * change what it can reach.
   */
  readonly lingering: boolean;
}

/** Runs `argv` to completion. Rejects only when the process cannot be started at all. */
export async function spawnCommand(spec: SpawnSpec): Promise<SpawnResult> {
  const started = performance.now();
  const collector = createOutputCollector(spec.limits, spec.onOutput);
  if (spec.signal.aborted) {
    return { ...result(collector.finish(), null, null, "cancel", started), lingering: false };
  }
  const start = () =>
    Bun.spawn([...spec.argv], {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ["ignore", "pipe", "pipe", ...(spec.extraFds ?? []), ...(spec.tie?.stdio ?? [])],
      // A group of its own; on Windows its job is that (a detached process there gets a console).
      detached: process.platform !== "win32",
      windowsHide: true,
    });
  const proc = spec.within === undefined ? start() : spec.within(start);
  spec.groups?.add(proc.pid);
  const untie = spec.tie?.started(proc);
  try {
    return await followCommand(spec, proc, collector, started);
  } finally {
    spec.groups?.delete(proc.pid);
    untie?.();
  }
}

async function followCommand(
  spec: SpawnSpec,
  proc: Bun.Subprocess<"ignore", "pipe", "pipe">,
  collector: ReturnType<typeof createOutputCollector>,
  started: number,
): Promise<SpawnResult> {
  let reason: StopReason | undefined;
  let stopping: Promise<boolean> | undefined;
  const { killGraceMs, goneWithinMs } = spec.limits;
  const terminate = () => terminateGroup(proc.pid, spec.graceful ? killGraceMs : 0, goneWithinMs);
  const stop = (why: StopReason) => {
    if (reason !== undefined) return;
    reason = why;
    stopping = terminate();
  };
  const onAbort = () => stop("cancel");
  spec.signal.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => stop("timeout"), spec.timeoutMs);
  const readers = [proc.stdout.getReader(), proc.stderr.getReader()];
  const drained = Promise.all(
    readers.map(async (reader) => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (collector.push(value) > spec.limits.hardLimitBytes) stop("output-limit");
      }
    }),
  ).catch(() => undefined);
  try {
    await proc.exited;
  } finally {
    clearTimeout(timer);
    spec.signal.removeEventListener("abort", onAbort);
  }
  // The shell is gone; background children it left in its group go with it.
  // Seen from the sandbox's init alone, which spares looking at every process of the machine.
  const init = stopping === undefined ? spec.sandboxInit?.() : undefined;
  const ended =
    stopping === undefined &&
    init !== undefined &&
    (await sandboxEnded(init, proc.pid, SANDBOX_END_MS));
  const gone = ended || (await (stopping ?? terminate()));
  const grace = Promise.withResolvers<"late">();
  const graceTimer = setTimeout(() => grace.resolve("late"), spec.limits.killGraceMs);
  const late = await Promise.race([drained.then(() => "done" as const), grace.promise]);
  clearTimeout(graceTimer);
  if (late === "late") {
    // Only a process that left the group (setsid) can still hold the pipe open.
    spec.logger.warn("a process that left the command's group still holds its output open");
    await Promise.all(readers.map((reader) => reader.cancel().catch(() => undefined)));
  }
  const signal = proc.signalCode === null ? null : String(proc.signalCode);
  const finished = result(collector.finish(), proc.exitCode, signal, reason, started);
  return { ...finished, lingering: !gone };
}

/** How long the sandbox's init may take to end its namespace before the group is killed. */
const SANDBOX_END_MS = 100;

function result(
  output: { text: string; droppedBytes: number },
  exitCode: number | null,
  signal: string | null,
  reason: StopReason | undefined,
  started: number,
): CommandResult {
  const limited = reason === "output-limit";
  return {
    exitCode,
    signal,
    output: limited
      ? `${output.text}\n[output limit reached: the command was killed]`
      : output.text,
    droppedBytes: output.droppedBytes,
    timedOut: reason === "timeout",
    cancelled: reason === "cancel",
    outputLimited: limited,
    durationMs: Math.round(performance.now() - started),
  };
}
