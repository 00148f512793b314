/**
 * Per-command cgroups, where this machine lets dsh make them: each command gets its own
 * (several runners in one process never share one), and the empty ones a killed dsh left
 * behind are removed by the next.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, rmdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { createCgroupMaker } from "../../src/exec/cgroup.ts";
import { silentLogger } from "../../src/log.ts";
import { runIf } from "../support/gate.ts";

const LIMITS = { processes: 64, memoryBytes: 256 * 1024 * 1024 };
const probe = createCgroupMaker(silentLogger).create(LIMITS);
await probe?.remove();

// Elsewhere dsh makes no cgroup and the rlimits alone bound commands (tests/exec/limits.test.ts).
const cgroupTest = runIf(
  probe !== undefined,
  test.concurrent,
  "making cgroups needs a writable cgroupfs (usually root)",
);

cgroupTest("two makers in one process never hand out the same cgroup", async () => {
  const a = createCgroupMaker(silentLogger).create(LIMITS);
  const b = createCgroupMaker(silentLogger).create(LIMITS);
  try {
    expect({ a: a?.controllers, b: b?.controllers }).toEqual({
      a: probe?.controllers,
      b: probe?.controllers,
    });
    const shared = a?.procsFiles.filter((file) => b?.procsFiles.includes(file));
    expect(shared).toEqual([]);
  } finally {
    await a?.remove();
    await b?.remove();
  }
});

cgroupTest("an empty cgroup of a dsh that is gone is removed by the next one", async () => {
  const ended = Bun.spawn(["true"]);
  await ended.exited;
  const first = createCgroupMaker(silentLogger).create(LIMITS);
  const parent = dirname(dirname(first?.procsFiles[0] ?? "/"));
  await first?.remove();
  const stale = join(parent, `dsh-${ended.pid}-0123456789ab`);
  mkdirSync(stale);
  try {
    const next = createCgroupMaker(silentLogger).create(LIMITS);
    await next?.remove();
    expect(existsSync(stale)).toBe(false);
  } finally {
    if (existsSync(stale)) rmdirSync(stale);
  }
});

/** Runs `script` in a shell that first joins `cgroup`'s groups; resolves with its exit code. */
async function inGroups(procsFiles: readonly string[], script: string): Promise<number> {
  const join = procsFiles.map((file) => `echo $$ > ${file} || exit 125`).join("; ");
  return Bun.spawn(["/bin/sh", "-c", `${join}; ${script}`], {
    stdio: ["ignore", "ignore", "ignore"],
  }).exited;
}

// A pids limit is what the reuse case counts hits of.
const pidsTest = runIf(
  probe?.controllers.includes("pids") === true,
  test.concurrent,
  "counting a group's hits needs the pids controller in a writable cgroupfs",
);

pidsTest(
  "an ended command's group goes to the next, counting only the next one's hits",
  async () => {
    const maker = createCgroupMaker(silentLogger);
    try {
      const first = maker.create({ processes: 1, memoryBytes: LIMITS.memoryBytes });
      if (first === undefined) throw new Error("the maker made no cgroup where the probe did");
      // The shell is the group's one process: its fork fails at pids.max.
      await inGroups(first.procsFiles, "(true) || exit 3");
      expect(first.hit()).toBe("processes");
      await first.release();
      const next = maker.create({ processes: 1, memoryBytes: LIMITS.memoryBytes });
      expect(next?.procsFiles).toEqual(first.procsFiles);
      expect(next?.hit()).toBeUndefined();
      await next?.release();
    } finally {
      await maker.close();
    }
  },
);

cgroupTest("a kept group something has joined since is not handed out again", async () => {
  const maker = createCgroupMaker(silentLogger);
  try {
    const first = maker.create(LIMITS);
    if (first === undefined) throw new Error("the maker made no cgroup where the probe did");
    await first.release();
    const sleeper = Bun.spawn(
      [
        "/bin/sh",
        "-c",
        `${first.procsFiles.map((file) => `echo $$ > ${file}`).join("; ")}; echo in; exec sleep 60`,
      ],
      { stdout: "pipe" },
    );
    const reader = sleeper.stdout.getReader();
    await reader.read();
    const next = maker.create(LIMITS);
    expect(next?.procsFiles.some((file) => first.procsFiles.includes(file))).toBe(false);
    await next?.remove();
    await first.remove();
    expect(await sleeper.exited).not.toBe(0);
  } finally {
    await maker.close();
  }
});
