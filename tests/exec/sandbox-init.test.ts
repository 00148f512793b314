/**
 * The end of a sandboxed command, seen from its sandbox's init (`src/exec/sandbox-init.ts`):
 * only bwrap's own first report counts, a pid that is not the group's is never taken for the
 * init, and a command's result comes only once nothing of its sandbox is left, a process that
 * left its group included.
 */
import { describe, expect, test } from "bun:test";
import { sandboxEnded, sandboxInitPid } from "../../src/exec/sandbox-init.ts";
import { makeRunner, pidsWith, run, tempDir, trackedSleepTokens } from "./helpers.ts";
import { bwrapOnly } from "./sandbox-support.ts";
import { runIf } from "../support/gate.ts";

const token = trackedSleepTokens();
const procTest = runIf(process.platform === "linux", test, "it reads /proc, which is Linux's");
const sandboxTest = bwrapOnly("bwrap's --info-fd is Linux's");

const REPORT = '{\n    "child-pid": 4242,\n    "cgroup-namespace": 4026532182\n}\n';

describe("the init's pid out of bwrap's report", () => {
  test("is its first object's child-pid", () => {
    expect(sandboxInitPid(REPORT)).toBe(4242);
    expect(sandboxInitPid('{\n    "child-pid": 17\n}\n')).toBe(17);
  });

  test("is never taken from anything written after that first object", () => {
    expect(sandboxInitPid(`${REPORT}{"child-pid": 1}`)).toBe(4242);
    expect(sandboxInitPid(`{}\n{"child-pid": 1}`)).toBeUndefined();
  });

  test("is undefined for an empty or foreign report", () => {
    expect(sandboxInitPid("")).toBeUndefined();
    expect(sandboxInitPid('x{"child-pid": 3}')).toBeUndefined();
    expect(sandboxInitPid('{"pid": 3}')).toBeUndefined();
  });
});

describe("the init's end", () => {
  procTest(
    "a running process of the group is not over; a process of another group never is",
    async () => {
      const proc = Bun.spawn(["sleep", token()], {
        stdio: ["ignore", "ignore", "ignore"],
        detached: true,
      });
      try {
        expect(await sandboxEnded(proc.pid, proc.pid, 30)).toBe(false);
        expect(await sandboxEnded(proc.pid, process.pid, 0)).toBe(false);
      } finally {
        proc.kill("SIGKILL");
        await proc.exited;
      }
      // Reaped: its pid is gone.
      expect(await sandboxEnded(proc.pid, proc.pid, 0)).toBe(true);
    },
  );

  procTest(
    "an init /proc does not show is over only once nothing of its group is left",
    async () => {
      const group = Bun.spawn(["sleep", token()], {
        stdio: ["ignore", "ignore", "ignore"],
        detached: true,
      });
      // No such process (as a /proc of another namespace would show it), its group still there.
      const unseen = 2 ** 22 + 1;
      try {
        expect(await sandboxEnded(unseen, group.pid, 0)).toBe(false);
      } finally {
        group.kill("SIGKILL");
        await group.exited;
      }
      expect(await sandboxEnded(unseen, group.pid, 0)).toBe(true);
    },
  );

  sandboxTest(
    "a sandboxed command's result comes once its sandbox is gone, setsid included",
    async () => {
      using dir = tempDir();
      await using runner = makeRunner();
      const [inGroup, left] = [token(), token()];
      const result = await run(
        runner,
        dir.path,
        `sleep ${inGroup} & setsid sleep ${left} & echo started`,
      );
      expect({ output: result.output, left: [...pidsWith(inGroup), ...pidsWith(left)] }).toEqual({
        output: "started\n",
        left: [],
      });
    },
  );

  sandboxTest("the command never holds the descriptor bwrap told the init's pid on", async () => {
    using dir = tempDir();
    await using runner = makeRunner();
    // The shell's own descriptors, listed by a child (a glob would open the directory itself,
    // and a last command alone would be exec'd in the shell's place).
    const result = await run(runner, dir.path, "ls /proc/$$/fd; exit 0");
    expect(result.output.trim().split("\n").sort()).toEqual(["0", "1", "2"]);
  });
});
