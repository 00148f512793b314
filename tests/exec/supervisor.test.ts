/**
 * The supervisor chain on its own: it starts nothing when the process that spawned it is
 * already gone, and the signal a dying dsh sends it (SIGALRM, by PR_SET_PDEATHSIG) ends the
 * command's whole group at once, a member that ignores SIGTERM included.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { locateSupervisor, superviseArgv } from "../../src/exec/supervisor.ts";
import { cleanUp, processesWith, sleepers, trackedToken, until } from "../hostile/processes.ts";
import { tempDir } from "./helpers.ts";
import { runIf } from "../support/gate.ts";

afterAll(cleanUp);

/** Soft and hard RLIMIT_NPROC and RLIMIT_DATA out of a `/proc/<pid>/limits` text. */
function processAndDataLimits(text: string): (string[] | undefined)[] {
  return ["Max processes", "Max data size"].map((name) =>
    new RegExp(`^${name}\\s+(\\S+)\\s+(\\S+)`, "m").exec(text)?.slice(1),
  );
}

const supervisor = locateSupervisor(process.platform);
// Elsewhere the runner spawns commands directly, and the README says what holds.
const chainTest = runIf(
  supervisor !== undefined,
  test.concurrent,
  "the supervisor chain needs Linux with setpriv (util-linux) and timeout (coreutils)",
);

describe("the supervisor chain", () => {
  chainTest("starts nothing when its parent is not the process it was made for", async () => {
    if (supervisor === undefined) return;
    using dir = tempDir();
    const marker = join(dir.path, "ran");
    // pid 1 stands for a dsh that died and left the chain to init before it was bound.
    const proc = Bun.spawn(superviseArgv(supervisor, 1, ["touch", marker]), {
      stdio: ["ignore", "ignore", "ignore"],
    });
    expect({ code: await proc.exited, ran: existsSync(marker) }).toEqual({
      code: 125,
      ran: false,
    });
  });

  chainTest("passes the command's exit status on", async () => {
    if (supervisor === undefined) return;
    const proc = Bun.spawn(superviseArgv(supervisor, process.pid, ["sh", "-c", "exit 7"]), {
      stdio: ["ignore", "ignore", "ignore"],
    });
    expect(await proc.exited).toBe(7);
  });

  chainTest("SIGALRM, what a dying dsh sends, SIGKILLs the whole group at once", async () => {
    if (supervisor === undefined) return;
    const token = trackedToken();
    const command = `trap '' TERM HUP INT; sleep ${token} & sleep ${token}; wait`;
    const proc = Bun.spawn(superviseArgv(supervisor, process.pid, ["sh", "-c", command]), {
      stdio: ["ignore", "ignore", "ignore"],
      detached: true,
    });
    await until("both sleepers run", () => sleepers(token) === 2, 10_000);
    proc.kill("SIGALRM");
    expect(await proc.exited).toBe(137);
    await until("the group is gone", () => processesWith(token).length === 0, 10_000);
  });

  chainTest("a parent SIGKILLed at any moment of the chain's start leaves nothing", async () => {
    const fixture = join(import.meta.dir, "fixtures/spawn-chain.ts");
    // Each millisecond of the chain's first dozen: setpriv, the checks, timeout's fork. The
    // dozen run side by side, so the case costs one chain's start, not twelve.
    const delays = Array.from({ length: 12 }, (_, delay) => delay);
    const outcomes = await Promise.all(
      delays.map(async (delay) => {
        const token = trackedToken();
        const command = `trap '' TERM HUP INT; sleep ${token} & sleep ${token}; wait`;
        const parent = Bun.spawn([process.execPath, fixture, command], {
          stdio: ["ignore", "pipe", "inherit"],
        });
        await parent.stdout.getReader().read();
        if (delay > 0) await Bun.sleep(delay);
        parent.kill("SIGKILL");
        await parent.exited;
        return until("the chain is gone", () => processesWith(token).length === 0, 10_000).then(
          () => undefined,
          () => delay,
        );
      }),
    );
    const left = outcomes.filter((delay) => delay !== undefined);
    expect(left).toEqual([]);
  });

  chainTest("sets the rlimits it is given, soft and hard, before the command starts", async () => {
    if (supervisor === undefined) return;
    const limits = { processes: 77, memoryBytes: 300 * 1024 * 1024 };
    const read = async (options: { rlimits?: typeof limits }) => {
      const argv = superviseArgv(supervisor, process.pid, ["cat", "/proc/self/limits"], options);
      const proc = Bun.spawn(argv, { stdio: ["ignore", "pipe", "ignore"] });
      const text = await new Response(proc.stdout).text();
      await proc.exited;
      return processAndDataLimits(text);
    };
    expect({ given: await read({ rlimits: limits }), none: await read({}) }).toEqual({
      given: [
        ["77", "77"],
        ["314572800", "314572800"],
      ],
      none: processAndDataLimits(readFileSync("/proc/self/limits", "utf8")),
    });
  });

  test("is not used off Linux", () => {
    expect(locateSupervisor("darwin")).toBeUndefined();
  });
});
