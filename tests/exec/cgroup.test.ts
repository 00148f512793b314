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
