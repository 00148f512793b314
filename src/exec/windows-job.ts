/**
 * Windows has no process groups to kill and no parent-death signal; it has job objects. Each
 * process dsh starts is put in a job of its own at once, whose limits say "kill every process
 * of the job when its last handle closes" (`JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`). dsh holds
 * the only handle: ending the command terminates the job (the command and everything it
 * started, which Windows puts in the same job), and a dsh that ends in any way, killed
 * included, closes the handle, which ends the job. A process the command starts in the instant
 * before it is assigned to its job is outside it (Windows has no way to assign a process that
 * `Bun.spawn` starts before it runs).
 *
 * The calls are kernel32's, through `bun:ffi`, loaded at the first spawn.
 */
import type * as Ffi from "bun:ffi";

/** `JobObjectBasicAccountingInformation` and `JobObjectExtendedLimitInformation`. */
const BASIC_ACCOUNTING = 1;
const EXTENDED_LIMITS = 9;
/** Sizes of the two structures on 64-bit Windows, and where their fields lie. */
export const EXTENDED_LIMITS_BYTES = 144;
const LIMIT_FLAGS_OFFSET = 16;
const ACCOUNTING_BYTES = 48;
const ACTIVE_PROCESSES_OFFSET = 40;
export const KILL_ON_JOB_CLOSE = 0x2000;
/** `PROCESS_SET_QUOTA | PROCESS_TERMINATE`: what `AssignProcessToJobObject` needs. */
export const ASSIGN_ACCESS = 0x0100 | 0x0001;

/** kernel32's calls as dsh uses them; handles are opaque numbers, 0 for none. */
export interface Kernel32 {
  CreateJobObjectW(attributes: null, name: null): number;
  SetInformationJobObject(job: number, kind: number, info: Uint8Array, length: number): number;
  QueryInformationJobObject(
    job: number,
    kind: number,
    info: Uint8Array,
    length: number,
    returned: null,
  ): number;
  OpenProcess(access: number, inherit: number, pid: number): number;
  AssignProcessToJobObject(job: number, process: number): number;
  TerminateJobObject(job: number, exitCode: number): number;
  CloseHandle(handle: number): number;
}

// Handles are pointers: bun:ffi passes and returns them as numbers, a null one as null.
const SYMBOLS = {
  CreateJobObjectW: { args: ["ptr", "ptr"], returns: "ptr" },
  SetInformationJobObject: { args: ["ptr", "i32", "ptr", "u32"], returns: "i32" },
  QueryInformationJobObject: { args: ["ptr", "i32", "ptr", "u32", "ptr"], returns: "i32" },
  OpenProcess: { args: ["u32", "i32", "u32"], returns: "ptr" },
  AssignProcessToJobObject: { args: ["ptr", "ptr"], returns: "i32" },
  TerminateJobObject: { args: ["ptr", "u32"], returns: "i32" },
  CloseHandle: { args: ["ptr"], returns: "i32" },
} as const;

/** kernel32 through `bun:ffi`; throws when it cannot be opened. */
export function openKernel32(ffi: typeof Ffi): Kernel32 {
  const lib = ffi.dlopen("kernel32.dll", SYMBOLS).symbols;
  const handle = (value: unknown) => (typeof value === "number" ? value : 0);
  const calls = lib as unknown as Record<keyof Kernel32, (...args: unknown[]) => unknown>;
  return {
    CreateJobObjectW: () => handle(calls.CreateJobObjectW(null, null)),
    SetInformationJobObject: (job, kind, info, length) =>
      Number(calls.SetInformationJobObject(job, kind, info, length)),
    QueryInformationJobObject: (job, kind, info, length) =>
      Number(calls.QueryInformationJobObject(job, kind, info, length, null)),
    OpenProcess: (access, inherit, pid) => handle(calls.OpenProcess(access, inherit, pid)),
    AssignProcessToJobObject: (job, process) =>
      Number(calls.AssignProcessToJobObject(job, process)),
    TerminateJobObject: (job, code) => Number(calls.TerminateJobObject(job, code)),
    CloseHandle: (value) => Number(calls.CloseHandle(value)),
  };
}

/** The limits that make a job end its processes when its last handle closes. */
export function killOnCloseLimits(): Uint8Array {
  const info = new Uint8Array(EXTENDED_LIMITS_BYTES);
  new DataView(info.buffer).setUint32(LIMIT_FLAGS_OFFSET, KILL_ON_JOB_CLOSE, true);
  return info;
}

/** The jobs of the processes dsh started, by the pid each job was made for. */
export interface JobTable {
  /**
   * Puts `pid` in a new job that ends with its handle; false when it cannot (the process is
   * gone, or Windows refuses), and then nothing is held for it.
   */
  adopt(pid: number): boolean;
  /** Whether a job is held for `pid`. */
  holds(pid: number): boolean;
  /** How many processes of the job of `pid` are alive; 0 when none is held. */
  active(pid: number): number;
  /** Ends every process of the job of `pid`; false when none is held. */
  terminate(pid: number): boolean;
  /** Ends the job of `pid` and lets it go. Idempotent. */
  close(pid: number): void;
}

/** A table over `kernel` (kernel32, or a stand-in at that seam in tests). Never throws. */
export function createJobTable(kernel: Kernel32): JobTable {
  const jobs = new Map<number, number>();
  const limits = killOnCloseLimits();
  const accounting = new Uint8Array(ACCOUNTING_BYTES);
  return {
    adopt(pid) {
      if (jobs.has(pid)) return true;
      const job = kernel.CreateJobObjectW(null, null);
      if (job === 0) return false;
      const handle =
        kernel.SetInformationJobObject(job, EXTENDED_LIMITS, limits, limits.length) === 0
          ? 0
          : kernel.OpenProcess(ASSIGN_ACCESS, 0, pid);
      const assigned = handle !== 0 && kernel.AssignProcessToJobObject(job, handle) !== 0;
      if (handle !== 0) kernel.CloseHandle(handle);
      if (!assigned) {
        kernel.CloseHandle(job);
        return false;
      }
      jobs.set(pid, job);
      return true;
    },
    holds: (pid) => jobs.has(pid),
    active(pid) {
      const job = jobs.get(pid);
      if (job === undefined) return 0;
      const ok = kernel.QueryInformationJobObject(
        job,
        BASIC_ACCOUNTING,
        accounting,
        accounting.length,
        null,
      );
      if (ok === 0) return 0;
      return new DataView(accounting.buffer).getUint32(ACTIVE_PROCESSES_OFFSET, true);
    },
    terminate(pid) {
      const job = jobs.get(pid);
      if (job === undefined) return false;
      kernel.TerminateJobObject(job, 1);
      return true;
    },
    close(pid) {
      const job = jobs.get(pid);
      if (job === undefined) return;
      jobs.delete(pid);
      kernel.TerminateJobObject(job, 1);
      kernel.CloseHandle(job);
    },
  };
}
