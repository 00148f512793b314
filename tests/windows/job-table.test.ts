/**
 * Windows job objects as far as they can be checked away from Windows: the limits dsh sets
 * (kill on close, at the offset 64-bit Windows reads them), and the handle logic over a
 * stand-in for kernel32 at the FFI seam: every handle opened is closed once, a process that
 * cannot be assigned leaves nothing held, and a held job ends with its release.
 */
import { describe, expect, test } from "bun:test";
import {
  ASSIGN_ACCESS,
  EXTENDED_LIMITS_BYTES,
  KILL_ON_JOB_CLOSE,
  createJobTable,
  killOnCloseLimits,
} from "../../src/exec/windows-job.ts";
import type { Kernel32 } from "../../src/exec/windows-job.ts";

/** kernel32 as a table of handles: what was opened, closed, assigned, terminated. */
function fakeKernel(options: { assignFails?: boolean; active?: number } = {}) {
  let next = 100;
  const open = new Set<number>();
  const log: string[] = [];
  const handle = (what: string) => {
    const h = next++;
    open.add(h);
    log.push(`${what} ${h}`);
    return h;
  };
  const kernel: Kernel32 = {
    CreateJobObjectW: () => handle("job"),
    SetInformationJobObject: (job, kind, info) => {
      log.push(`limits ${job} ${kind} ${new DataView(info.buffer).getUint32(16, true)}`);
      return 1;
    },
    QueryInformationJobObject: (job, _kind, info) => {
      new DataView(info.buffer).setUint32(40, options.active ?? 2, true);
      log.push(`query ${job}`);
      return 1;
    },
    OpenProcess: (access, _inherit, pid) => {
      log.push(`open ${pid} access ${access}`);
      return handle("process");
    },
    AssignProcessToJobObject: (job, process) => {
      log.push(`assign ${process} to ${job}`);
      return options.assignFails === true ? 0 : 1;
    },
    TerminateJobObject: (job) => {
      log.push(`terminate ${job}`);
      return 1;
    },
    CloseHandle: (h) => {
      log.push(`close ${h}`);
      if (!open.delete(h)) throw new Error(`handle ${h} closed twice or never opened`);
      return 1;
    },
  };
  return { kernel, log, open };
}

describe("the job a process is put in", () => {
  test("kills its processes when its last handle closes", () => {
    const limits = killOnCloseLimits();
    expect(limits.length).toBe(EXTENDED_LIMITS_BYTES);
    expect(new DataView(limits.buffer).getUint32(16, true)).toBe(KILL_ON_JOB_CLOSE);
    expect([...limits].filter((byte) => byte !== 0).length).toBe(1);
  });

  test("is made, limited and assigned; the process handle goes at once, the job's at release", () => {
    const { kernel, log, open } = fakeKernel();
    const jobs = createJobTable(kernel);
    expect(jobs.adopt(4242)).toBe(true);
    expect(log).toEqual([
      "job 100",
      `limits 100 9 ${KILL_ON_JOB_CLOSE}`,
      `open 4242 access ${ASSIGN_ACCESS}`,
      "process 101",
      "assign 101 to 100",
      "close 101",
    ]);
    expect([...open]).toEqual([100]);
    expect([jobs.holds(4242), jobs.active(4242)]).toEqual([true, 2]);
    expect(jobs.terminate(4242)).toBe(true);
    jobs.close(4242);
    jobs.close(4242);
    expect(log.slice(-4)).toEqual(["query 100", "terminate 100", "terminate 100", "close 100"]);
    expect([...open]).toEqual([]);
    expect([jobs.holds(4242), jobs.active(4242), jobs.terminate(4242)]).toEqual([false, 0, false]);
  });

  test("a process that cannot be assigned leaves no handle and no job held", () => {
    const { kernel, open } = fakeKernel({ assignFails: true });
    const jobs = createJobTable(kernel);
    expect(jobs.adopt(7)).toBe(false);
    expect([...open]).toEqual([]);
    expect(jobs.holds(7)).toBe(false);
  });
});
