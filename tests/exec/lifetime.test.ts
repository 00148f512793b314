/**
 * The shared lifetime helper: argv under the chain keeps an MCP server's stderr apart from its
 * stdout (a command's joins it), and a group held until exit is killed when its process exits
 * without stopping it, which is all that holds where the chain is missing.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { tiedArgv } from "../../src/exec/lifetime.ts";
import { silentLogger } from "../../src/log.ts";
import { cleanUp, processesWith, sleepers, trackedToken, until } from "../hostile/processes.ts";
import { needsSupervisor } from "../support/supervisor-gate.ts";

afterAll(cleanUp);

const chainTest = needsSupervisor(test.concurrent);

async function outputs(mergeStderr: boolean): Promise<{ stdout: string; stderr: string }> {
  const argv = tiedArgv(["sh", "-c", "echo out; echo err >&2"], {
    logger: silentLogger,
    mergeStderr,
  });
  const proc = Bun.spawn(argv, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  const [stdout, stderr] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr };
}

describe("processes tied to dsh's lifetime", () => {
  chainTest("keep stderr apart when asked, and join it to stdout for commands", async () => {
    expect(await Promise.all([outputs(false), outputs(true)])).toEqual([
      { stdout: "out\n", stderr: "err\n" },
      { stdout: "out\nerr\n", stderr: "" },
    ]);
  });

  test.concurrent("a held group is killed when its process exits without stopping it", async () => {
    const token = trackedToken();
    const command = `trap '' TERM HUP INT; sleep ${token} & sleep ${token}; wait`;
    const holder = Bun.spawn(
      [process.execPath, join(import.meta.dir, "fixtures/hold-until-exit.ts"), command],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    await holder.stdout.getReader().read();
    await until("both sleepers run", () => sleepers(token) === 2, 10_000);
    holder.stdin.end();
    // The exit-time kill blocks until the group is gone: nothing is left once the holder is.
    expect(await holder.exited).toBe(0);
    expect(processesWith(token)).toEqual([]);
  });
});
