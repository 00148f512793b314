/**
 * Job objects on Windows, for real: a command's children end with the command (its shell
 * exits, it times out, it is cancelled), and an MCP server's with the server. Git Bash runs the
 * commands (GitHub's Windows runners have it); each child's Windows pid comes from MSYS's
 * `/proc/PID/winpid`, and Windows then says whether that process still runs.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCommandRunner } from "../../src/exec/runner.ts";
import { silentLogger } from "../../src/log.ts";
import { outputWatcher } from "../exec/helpers.ts";
import { runIf } from "../support/gate.ts";

const windowsTest = runIf(
  process.platform === "win32",
  test,
  "job objects are Windows'; elsewhere the process-group and supervisor suites cover this",
);

const runner = createCommandRunner({
  env: process.env,
  sandbox: "auto",
  home: tmpdir(),
  stateDir: join(tmpdir(), "dsh-jobs-state"),
  logger: silentLogger,
});

/** Whether Windows still runs `pid` (`tasklist` names it, or says no task matches). */
function running(pid: number): boolean {
  const listed = Bun.spawnSync(["tasklist", "/FI", `PID eq ${pid}`, "/NH"]).stdout.toString();
  return listed.includes(` ${pid} `);
}

/** The Windows pids a command printed, one `winpid=N` line each. */
function winpids(output: string): number[] {
  return [...output.matchAll(/winpid=(\d+)/g)].map((match) => Number(match[1]));
}

const child = "sleep 1000 & echo winpid=$(cat /proc/$!/winpid)";

describe("a command's children on Windows", () => {
  windowsTest("end when the shell exits, when it times out, and when it is cancelled", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "dsh-jobs-")));
    try {
      const run = (
        command: string,
        extra: { timeoutMs?: number; signal?: AbortSignal; onOutput?: (text: string) => void } = {},
      ) =>
        runner.run(
          {
            command,
            cwd: dir,
            workspace: dir,
            sandbox: "danger-full-access",
            timeoutMs: extra.timeoutMs,
          },
          { signal: extra.signal ?? new AbortController().signal, onOutput: extra.onOutput },
        );
      const exited = await run(`${child}; ${child}`);
      expect(exited.exitCode).toBe(0);
      const timedOut = await run(`${child}; sleep 1000`, { timeoutMs: 1_000 });
      expect(timedOut.timedOut).toBe(true);
      const abort = new AbortController();
      const watch = outputWatcher("winpid=");
      const cancelled = run(`${child}; sleep 1000`, {
        signal: abort.signal,
        onOutput: watch.onOutput,
      });
      await watch.seen;
      abort.abort();
      expect((await cancelled).cancelled).toBe(true);
      const pids = [exited, timedOut, await cancelled].flatMap((result) => winpids(result.output));
      expect(pids.length).toBe(4);
      expect(pids.filter(running)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
