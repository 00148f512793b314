/**
 * Who holds a session lock, and whether that process may still be running. A lock names its
 * owner by host, pid and (where the OS exposes them) boot id and process start time, so a pid
 * the kernel has handed to an unrelated process since, or a machine that rebooted, does not
 * keep a crashed writer's lock alive.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import * as v from "valibot";
import { errorCode } from "../error-code.ts";

/** The content of a lock file: one JSON object. */
export const LockRecord = v.object({
  pid: v.pipe(v.number(), v.integer(), v.minValue(1)),
  host: v.string(),
  /** Linux boot id; absent where the OS has none to read. */
  boot: v.optional(v.string()),
  /**
   * Process start time: clock ticks since boot from procfs, else (where only the process itself
   * can tell) its start in epoch milliseconds; comparable only when the reader can compute the
   * same kind of token for that pid.
   */
  start: v.optional(v.string()),
  /** Unique per acquisition: tells this lock apart from any earlier one of the same process. */
  nonce: v.string(),
});
export type LockRecord = v.InferOutput<typeof LockRecord>;

/** A record naming the current process as owner, with a fresh nonce. */
export function currentOwner(): LockRecord {
  const boot = readBootId();
  const start = startToken(process.pid, readProcStat(process.pid));
  return {
    pid: process.pid,
    host: hostname(),
    ...(boot === undefined ? {} : { boot }),
    ...(start === undefined ? {} : { start }),
    nonce: Bun.randomUUIDv7(),
  };
}

/**
 * Whether the owner may still be running. Errs towards `true`: a lock from another host can
 * not be checked from here and counts as held, because breaking a live lock corrupts the log
 * while keeping a dead one only needs the user to delete a file.
 */
export function ownerMayBeAlive(owner: LockRecord): boolean {
  if (owner.host !== hostname()) return true;
  const boot = readBootId();
  if (owner.boot !== undefined && boot !== undefined && owner.boot !== boot) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: the pid exists but belongs to someone else; only ESRCH proves it gone.
    if (errorCode(error) === "ESRCH") return false;
  }
  const stat = readProcStat(owner.pid);
  // A zombie still answers kill(pid, 0) but will never write again.
  if (stat?.state === "Z" || stat?.state === "X") return false;
  const start = startToken(owner.pid, stat);
  return owner.start === undefined || start === undefined || owner.start === start;
}

/** The start token of `pid`, when this process can know it. */
function startToken(pid: number, stat: ProcStat | undefined): string | undefined {
  if (stat !== undefined) return stat.start;
  return pid === process.pid ? `ms${Math.round(performance.timeOrigin)}` : undefined;
}

interface ProcStat {
  readonly state: string;
  readonly start: string;
}

/** State and start time from `/proc/<pid>/stat`; undefined without procfs or process. */
function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  const start = fields[19];
  if (state === undefined || start === undefined || !/^\d+$/.test(start)) return undefined;
  return { state, start };
}

function readBootId(): string | undefined {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}
