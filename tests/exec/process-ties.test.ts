/**
 * How processes are tied to dsh where the kernel has no parent-death signal (macOS): the
 * watchdog ends the groups it holds when its dsh is SIGKILLed; a process behind the gate
 * starts only once the watchdog holds it, and not at all when dsh dies first; and the sweep
 * finds a sandbox's processes wherever they went, round after round. The watchdog and the gate
 * are plain processes and run here for real; the sweep's system calls are macOS's, stood in for
 * at their seam (the macOS suite runs them for real).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, existsSync } from "node:fs";
import { join } from "node:path";
import { gatedTie } from "../../src/exec/lifetime.ts";
import { sandboxProcesses, sweepSandbox } from "../../src/exec/sandbox-sweep.ts";
import type { ProcessCalls } from "../../src/exec/sandbox-sweep.ts";
import type { Watchdog } from "../../src/exec/watchdog.ts";
import { applyControlLine } from "../../src/exec/watchdog-main.ts";
import { GONE_WITHIN_MS, cleanUp, sleepers, trackedToken, until } from "../hostile/processes.ts";
import { tempDir } from "./helpers.ts";

afterAll(cleanUp);

const quiet: Watchdog = {
  holdGroup() {},
  releaseGroup() {},
  holdSandbox() {},
  releaseSandbox() {},
};

describe("the watchdog", () => {
  test.concurrent("ends the groups it holds when its dsh is SIGKILLed", async () => {
    const token = trackedToken();
    const parent = Bun.spawn(
      [
        process.execPath,
        join(import.meta.dir, "fixtures/watched-parent.ts"),
        `trap '' TERM HUP INT; sleep ${token} & sleep ${token}; wait`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await parent.stdout.getReader().read();
    await until("both sleepers run", () => sleepers(token) === 2, GONE_WITHIN_MS);
    parent.kill("SIGKILL");
    await parent.exited;
    await until("the group is gone", () => sleepers(token) === 0, GONE_WITHIN_MS);
    expect(sleepers(token)).toBe(0);
  });

  test("reads what to hold one line at a time, and ignores what it does not know", () => {
    const state = { groups: new Set<number>(), sandboxes: new Set<string>() };
    for (const line of [
      "g+ 42",
      "g+ 1",
      "g+ x",
      "s+ /private/t/dsh-cmd-1",
      "s+ relative",
      "?? 3",
    ]) {
      applyControlLine(state, line);
    }
    expect(state).toEqual({ groups: new Set([42]), sandboxes: new Set(["/private/t/dsh-cmd-1"]) });
    applyControlLine(state, "g- 42");
    applyControlLine(state, "s- /private/t/dsh-cmd-1");
    expect(state).toEqual({ groups: new Set(), sandboxes: new Set() });
  });
});

describe("the gate", () => {
  const gated = (marker: string, held: number[]) => {
    const dog = { ...quiet, holdGroup: (pgid: number) => held.push(pgid) };
    const tie = gatedTie(["sh", "-c", `touch ${marker}`], 3, dog);
    const proc = Bun.spawn(tie.argv, { stdio: ["ignore", "ignore", "ignore", ...tie.stdio] });
    return { tie, proc };
  };

  test.concurrent("lets the process start once the watchdog holds its group", async () => {
    using dir = tempDir();
    const marker = join(dir.path, "ran");
    const held: number[] = [];
    const { tie, proc } = gated(marker, held);
    tie.started(proc);
    expect(await proc.exited).toBe(0);
    expect([held, existsSync(marker)]).toEqual([[proc.pid], true]);
  });

  test.concurrent("starts nothing when dsh is gone before it opens", async () => {
    using dir = tempDir();
    const marker = join(dir.path, "ran");
    const { proc } = gated(marker, []);
    // What a dsh killed between the spawn and the watchdog's message leaves: the pipe's end.
    closeSync(proc.stdio[3] as number);
    expect(await proc.exited).toBe(125);
    expect(existsSync(marker)).toBe(false);
  });
});

/** A machine of processes, each with what its sandbox lets it write; kill can fork a child. */
function machine(
  processes: Record<number, { writes: string[]; uid?: number; zombie?: boolean }>,
  forks: Record<number, number> = {},
) {
  const alive = new Map(Object.entries(processes).map(([pid, p]) => [Number(pid), p]));
  const calls: ProcessCalls = {
    pids: () => [...alive.keys()],
    describe: (pid) => {
      const p = alive.get(pid);
      return p && { uid: p.uid ?? process.getuid?.() ?? 0, zombie: p.zombie === true };
    },
    mayWrite: (pid, path) =>
      alive.get(pid)?.writes.some((root) => path === root || path.startsWith(`${root}/`)) ?? false,
  };
  const killed: number[] = [];
  const kill = (pid: number) => {
    killed.push(pid);
    const p = alive.get(pid);
    alive.delete(pid);
    const child = forks[pid];
    if (child !== undefined && p !== undefined) alive.set(child, p);
  };
  return { calls, kill, killed, alive };
}

describe("the sweep of a sandbox", () => {
  const marker = "/private/var/folders/x/T/dsh-cmd-1";

  test("finds the processes that may write the command's temp directory and nothing beside it", () => {
    const { calls } = machine({
      10: { writes: [marker] },
      11: { writes: [marker], zombie: true },
      12: { writes: [marker], uid: 12345 },
      13: { writes: ["/"] },
      14: { writes: ["/private/var/folders/x/T/dsh-cmd-2"] },
      [process.pid]: { writes: [marker] },
    });
    expect(sandboxProcesses(marker, { calls })).toEqual([10]);
  });

  test("kills round after round until none is left, a child forked meanwhile included", () => {
    const m = machine({ 20: { writes: [marker] }, 30: { writes: ["/"] } }, { 20: 21, 21: 22 });
    expect(sweepSandbox(marker, { calls: m.calls, kill: m.kill })).toEqual({ killed: 3, left: 0 });
    expect(m.killed).toEqual([20, 21, 22]);
    expect([...m.alive.keys()]).toEqual([30]);
  });

  test("gives up at its deadline and says how many are left", () => {
    const m = machine({ 40: { writes: [marker] } });
    const result = sweepSandbox(marker, { calls: m.calls, kill: () => {}, withinMs: 20 });
    expect(result).toEqual({ killed: 1, left: 1 });
  });
});
