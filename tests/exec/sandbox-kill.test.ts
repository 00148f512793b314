/**
 * The check after a killed command runs only once nothing of the command is left: a process
 * still running once its group was SIGKILLed could plant a `.git` after the check, which the
 * next command's walk would take for the user's. The sandbox's init is held frozen (the cgroup
 * v1 freezer keeps a task from dying until it is thawed), so the PID namespace cannot end, and a
 * process that left the command's group plants a repository until something kills it.
 */
import { describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { runIf } from "../support/gate.ts";
import { sandboxStatus } from "../support/sandbox-gate.ts";
import { makeRunner, run, tempDir } from "./helpers.ts";

const FREEZER = "/sys/fs/cgroup/freezer";
const frozenTest = runIf(
  sandboxStatus.ok &&
    sandboxStatus.backend === "bwrap" &&
    process.getuid?.() === 0 &&
    existsSync(join(FREEZER, "cgroup.procs")),
  test,
  "needs bwrap, root and the cgroup v1 freezer (which holds the sandbox's init alive)",
);

/** Polls `done` until it holds, at most 10 s. */
async function until(done: () => boolean): Promise<boolean> {
  const deadline = performance.now() + 10_000;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await Bun.sleep(10);
  }
  return true;
}

/** A freezer cgroup of its own; disposing thaws it and removes it once it is empty. */
function freezer() {
  const dir = join(FREEZER, `dsh-test-${process.pid}-${Math.floor(Math.random() * 1e9)}`);
  mkdirSync(dir);
  const state = () => readFileSync(join(dir, "freezer.state"), "utf8").trim();
  const held = () => readFileSync(join(dir, "cgroup.procs"), "utf8").trim();
  return {
    async freeze(pid: number) {
      // Writing 0 would move (and freeze) the writer itself.
      if (!(pid > 1)) throw new Error(`not a process to freeze: ${pid}`);
      writeFileSync(join(dir, "cgroup.procs"), String(pid));
      writeFileSync(join(dir, "freezer.state"), "FROZEN");
      expect(await until(() => state() === "FROZEN")).toBe(true);
    },
    async [Symbol.asyncDispose]() {
      writeFileSync(join(dir, "freezer.state"), "THAWED");
      // Thawed, the init takes its SIGKILL, and its namespace ends.
      await until(() => held() === "");
      rmdirSync(dir);
    },
  };
}

/** The pid (as dsh sees it) of the init of the PID namespace `ns` (`pid:[inode]`). */
function initOf(ns: string): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/ns/pid`) !== ns) continue;
      const nspid = /^NSpid:\t(.*)$/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1];
      if (nspid?.split("\t").at(-1) === "1") return Number(entry);
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

/** How the command is stopped once its init is frozen: a cancel, or its output flooding. */
const STOPS = [
  { stop: "a cancel", flood: false },
  { stop: "the output limit", flood: true },
] as const;

describe("a killed command whose sandbox outlives the kill", () => {
  for (const { stop, flood } of STOPS) {
    frozenTest(
      `stopped by ${stop}, it leaves the workspace unchecked: what it plants afterwards never passes for the user's`,
      async () => {
        using root = tempDir("dsh-kill-", "/var/tmp");
        const limits = { goneWithinMs: 300, killGraceMs: 300, hardLimitBytes: 1024 * 1024 };
        await using runner = makeRunner({ limits });
        // Thawed before the runner ends, which waits for the command's cgroup to go.
        await using frozen = freezer();
        const ws = root.path;
        const abort = new AbortController();
        let output = "";
        const planted = Promise.withResolvers<void>();
        const script = [
          "readlink /proc/self/ns/pid",
          // Out of the command's group: only the end of the namespace ends it.
          "setsid sh -c 'while :; do mkdir -p sub/.git/hooks; sleep 0.02; done' </dev/null >/dev/null 2>&1 &",
          "until [ -d sub/.git ]; do sleep 0.01; done",
          "echo planted",
          // The flood waits for the test to have frozen the init.
          flood ? "until [ -e go ]; do sleep 0.01; done; yes" : "sleep 1000",
        ].join("\n");
        const running = run(runner, ws, script, {
          signal: abort.signal,
          onOutput: (text) => {
            output += text;
            if (output.includes("planted\n")) planted.resolve();
          },
        });
        await planted.promise;
        const init = initOf(/pid:\[\d+\]/.exec(output)?.[0] ?? "");
        expect(init).toBeGreaterThan(1);
        await frozen.freeze(init ?? 0);
        if (flood) writeFileSync(join(ws, "go"), "");
        else abort.abort();
        const result = await running;
        expect([result.cancelled, result.outputLimited]).toEqual([!flood, flood]);
        expect(result.output).toContain("still running after it was killed");
        // Whatever the loop planted after the check, the next command must not take it in.
        await expect(run(runner, ws, "true")).rejects.toThrow(/could not check all of/);
      },
      30_000,
    );
  }
});
