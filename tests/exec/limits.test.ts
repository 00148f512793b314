/**
 * Resource bounds of sandboxed commands (`[limits]`): a fork bomb and a runaway allocation
 * end with a clear result, quickly, and the machine keeps working. The bounds are low here,
 * so every case stays small even where a bound fails.
 */
import { afterAll, expect } from "bun:test";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { createCgroupMaker } from "../../src/exec/cgroup.ts";
import type { CommandLimits } from "../../src/exec/limits.ts";
import { silentLogger } from "../../src/log.ts";
import { cleanUp, processesWith, trackedToken } from "../hostile/processes.ts";
import { makeRunner, run, tempDir } from "./helpers.ts";
import { bwrapOnly } from "./sandbox-support.ts";

// On macOS RLIMIT_NPROC counts every process of the user and nothing bounds memory: its
// process bound is checked in tests/exec/ulimit.test.ts and tests/macos.
const sandboxTest = bwrapOnly(
  "prlimit inside bubblewrap's user namespace, and cgroups, are Linux's",
);
import { runIf } from "../support/gate.ts";
import { unprivilegedFixture } from "../support/unprivileged.ts";
import { supervisorWorks } from "../support/supervisor-gate.ts";

afterAll(cleanUp);

const LOW: CommandLimits = { processes: 48, memoryBytes: 256 * 1024 * 1024 };
/**
 * The bomb doubles at every level but stops at this depth: should the bound ever fail, it
 * makes 2^11 processes on a shared machine, not all the machine has.
 */
const DEPTH = 10;
/** The supervisor chain and bwrap run in the command's cgroup too. */
const CHAIN = 4;

/** The most processes carrying `token` seen at once until `done` settles. */
async function samplePeak(token: string, done: Promise<unknown>): Promise<number> {
  let settled = false;
  void done.finally(() => {
    settled = true;
  });
  let peak = 0;
  while (!settled) {
    peak = Math.max(peak, processesWith(token).length);
    // /proc has no change event: sample it.
    await Bun.sleep(5);
  }
  return peak;
}

const probe = createCgroupMaker(silentLogger).create(LOW);
const pidsCgroup = probe?.controllers.includes("pids") === true;
const memoryCgroup = probe?.controllers.includes("memory") === true;
await probe?.remove();
const root = process.getuid?.() === 0;

// The kernel does not apply RLIMIT_NPROC to root, so as root only a pids cgroup bounds a fork
// bomb, and a command joins its cgroups through the supervisor chain. The README's known limits
// say so; the unprivileged case below runs.
const boundedTest = runIf(
  !root || (pidsCgroup && supervisorWorks),
  sandboxTest,
  "as root without a pids cgroup joined through the supervisor chain a real fork bomb would take the machine down",
);

boundedTest("a fork bomb is held at the process limit and its result names the limit", async () => {
  using dir = tempDir();
  await using runner = makeRunner({ commandLimits: LOW });
  const token = trackedToken();
  const level = "$(($1 + 1))";
  const bomb = `bomb() { [ "$1" -lt ${DEPTH} ] && { bomb ${level} | bomb ${level} & }; }`;
  // The shell stays, so the bomb runs until the command's timeout ends it.
  const running = run(runner, dir.path, `: ${token}; ${bomb}; bomb 0; sleep 10`, {
    timeoutMs: 1_500,
  });
  const peak = samplePeak(token, running);
  const result = await running;
  expect({
    timedOut: result.timedOut,
    limit: result.limitHit?.limit,
    bounded: (await peak) <= LOW.processes + CHAIN,
    // The machine still starts processes, and nothing of the bomb is left.
    machine: Bun.spawnSync(["true"]).exitCode,
    left: processesWith(token),
  }).toEqual({ timedOut: true, limit: "processes", bounded: true, machine: 0, left: [] });
});

sandboxTest("a runaway allocation fails at the memory limit and says so", async () => {
  using dir = tempDir();
  await using runner = makeRunner({ commandLimits: LOW });
  const result = await run(runner, dir.path, `awk 'BEGIN { s = "x"; while (1) s = s s }'`);
  expect({ failed: result.exitCode !== 0, hit: result.limitHit }).toEqual({
    failed: true,
    hit: { limit: "memory", value: 256, certain: expect.any(Boolean) },
  });
});

// Without a memory cgroup each process is still bounded, as the case above shows.
const memoryCgroupTest = runIf(
  memoryCgroup && supervisorWorks,
  sandboxTest,
  "only a memory cgroup, joined through the supervisor chain, bounds the command as a whole, and none can be made and joined here",
);

memoryCgroupTest(
  "processes that together pass the memory limit are killed, and the result says so",
  async () => {
    using dir = tempDir();
    await using runner = makeRunner({ commandLimits: LOW });
    // Each stays under the per-process bound (about 100 MiB); six of them pass 256 MiB.
    const grow = `awk 'BEGIN { s = "x"; while (length(s) < 50000000) s = s s; system("sleep 1") }'`;
    const result = await run(runner, dir.path, `for i in 1 2 3 4 5 6; do ${grow} & done; wait`);
    expect({ killed: result.output.includes("Killed"), hit: result.limitHit }).toEqual({
      killed: true,
      hit: { limit: "memory", value: 256, certain: true },
    });
  },
);

sandboxTest("a command within its bounds reports no limit", async () => {
  using dir = tempDir();
  await using runner = makeRunner({ commandLimits: LOW });
  const result = await run(runner, dir.path, "for i in 1 2 3 4 5 6 7 8; do sleep 0 & done; wait");
  expect({ code: result.exitCode, hit: result.limitHit }).toEqual({ code: 0, hit: undefined });
});

sandboxTest(
  "the command runs under its rlimits, soft and hard, so it cannot raise them",
  async () => {
    using dir = tempDir();
    await using runner = makeRunner({ commandLimits: LOW });
    const result = await run(
      runner,
      dir.path,
      "grep -E '^Max (processes|data size)' /proc/self/limits",
    );
    const pairs = result.output
      .trim()
      .split("\n")
      .map((line) => line.split(/\s{2,}/).slice(1, 3));
    expect(pairs).toEqual([
      [String(LOW.memoryBytes), String(LOW.memoryBytes)],
      [String(LOW.processes), String(LOW.processes)],
    ]);
  },
);

// A non-root run already exercises the same path in the fork bomb case above.
const asRootTest = runIf(
  root && Bun.which("setpriv") !== null,
  sandboxTest,
  "it drops to an unprivileged user with setpriv (util-linux), which needs root",
);

asRootTest("as an unprivileged user, RLIMIT_NPROC alone holds a burst of forks", async () => {
  using dir = tempDir();
  chmodSync(dir.path, 0o777);
  const token = trackedToken();
  // A bounded burst, so a failed bound leaves 200 sleepers for a second, not a dead machine.
  const command = `: ${token}; for i in $(seq 200); do sleep 1 & done; wait`;
  using fixture = await unprivilegedFixture(join(import.meta.dir, "fixtures/run-limited.ts"));
  const proc = Bun.spawn(fixture.argv(dir.path, "32", "256", "3000", command), {
    cwd: fixture.cwd,
    stdio: ["ignore", "pipe", "inherit"],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir.path },
  });
  const peak = samplePeak(token, proc.exited);
  const result = JSON.parse(await new Response(proc.stdout).text());
  expect({ limit: result.limitHit?.limit, bounded: (await peak) <= 32 + CHAIN }).toEqual({
    limit: "processes",
    bounded: true,
  });
});
