/**
 * The runner's process handling, unsandboxed (`danger-full-access`): output order, caps and
 * sanitising, stdin, timeouts, cancel and dispose killing whole process groups.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { InvalidInputError } from "../../src/errors.ts";
import { RunnerDisposedError } from "../../src/exec/errors.ts";
import type { CommandRequest } from "../../src/exec/types.ts";
import {
  killAll,
  makeRunner,
  outputWatcher,
  pidsWith,
  run,
  sleepScript,
  trackedSleepTokens,
  tempDir,
} from "./helpers.ts";

const token = trackedSleepTokens();

const full: Partial<CommandRequest> = { sandbox: "danger-full-access" };
const runner = makeRunner({ limits: { hardLimitBytes: 4 * 1024 * 1024, killGraceMs: 300 } });

describe("output", () => {
  test.concurrent("stdout and stderr arrive merged, in the order they were written", async () => {
    using dir = tempDir();
    const result = await run(runner, dir.path, "echo 1; echo 2 >&2; echo 3; echo 4 >&2", full);
    expect(result).toMatchObject({
      exitCode: 0,
      signal: null,
      output: "1\n2\n3\n4\n",
      droppedBytes: 0,
    });
  });

  test.concurrent("a long output keeps head and tail around a marker (case 24)", async () => {
    using dir = tempDir();
    const result = await run(
      runner,
      dir.path,
      "head -c 300000 /dev/zero | tr '\\0' x; echo; echo end",
      full,
    );
    const dropped = 300005 - 2 * 32 * 1024;
    expect(result.droppedBytes).toBe(dropped);
    expect(result.output).toBe(
      `${"x".repeat(32768)}\n[... ${dropped} bytes omitted ...]\n${"x".repeat(32763)}\nend\n`,
    );
  });

  test.concurrent("an endless output is killed at the hard ceiling with bounded output (case 24)", async () => {
    using dir = tempDir();
    for (const command of ["yes", "head -c 1G /dev/zero"]) {
      const result = await run(runner, dir.path, command, full);
      expect(result).toMatchObject({ outputLimited: true, timedOut: false, cancelled: false });
      expect(result.droppedBytes).toBeGreaterThan(4 * 1024 * 1024 - 65536);
      expect(result.output).toContain("bytes omitted ...]");
      expect(result.output).toEndWith("[output limit reached: the command was killed]");
      expect(result.output.length).toBeLessThan(70_000);
    }
  });

  test.concurrent("binary garbage, ANSI, NUL and invalid UTF-8 come out as clean text (case 25)", async () => {
    using dir = tempDir();
    const garbage = await run(
      runner,
      dir.path,
      "head -c 200000 /dev/urandom; echo; echo after",
      full,
    );
    expect(garbage.exitCode).toBe(0);
    expect(garbage.output).toEndWith("\nafter\n");
    expect(garbage.output).not.toMatch(/[\u0000\u001b]/);
    const text = await run(
      runner,
      dir.path,
      "printf '\\033[31mred\\033[0m \\0nul \\377\\376\\n50%%\\r100%%\\n'",
      full,
    );
    expect(text.output).toBe("red nul \ufffd\ufffd\n100%\n");
  });

  test.concurrent("a huge single line is capped like any output", async () => {
    using dir = tempDir();
    const result = await run(
      runner,
      dir.path,
      "head -c 3000000 /dev/zero | tr '\\0' a; echo; echo end",
      full,
    );
    expect(result.output.length).toBeLessThan(66_000);
    expect(result.output).toStartWith("aaaa");
    expect(result.output).toEndWith("aaa\nend\n");
  });

  test.concurrent("stdin is at EOF, so a command reading it returns at once (case 26)", async () => {
    using dir = tempDir();
    const result = await run(runner, dir.path, "cat; read line; echo read=$?", full);
    expect(result).toMatchObject({ exitCode: 0, output: "read=1\n", timedOut: false });
  });

  test.concurrent("quotes, $(), newlines and -- reach the shell verbatim (case 27)", async () => {
    using dir = tempDir();
    const command = `printf '%s|' "a b" 'c"d' "$(echo sub)" -- '$HOME' "x\ny"; echo\n--help 2>/dev/null; echo rc=$?`;
    const result = await run(runner, dir.path, command, full);
    expect(result.output).toBe('a b|c"d|sub|--|$HOME|x\ny|\nrc=127\n');
    const dashed = await run(runner, dir.path, "--version 2>/dev/null; echo rc=$?", full);
    expect(dashed.output).toBe("rc=127\n");
  });

  test.concurrent("exit status and signal are reported", async () => {
    using dir = tempDir();
    expect((await run(runner, dir.path, "exit 3", full)).exitCode).toBe(3);
    const killed = await run(runner, dir.path, "kill -KILL $$", full);
    expect([killed.exitCode, killed.signal]).toEqual([null, "SIGKILL"]);
  });
});

describe("working directory", () => {
  test.concurrent("a relative, missing or non-directory cwd is refused before spawn (case 28)", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "file"), "");
    for (const cwd of ["relative/dir", join(dir.path, "missing"), join(dir.path, "file")]) {
      const attempt = runner.run(
        { command: "touch ran", cwd, workspace: dir.path, sandbox: "danger-full-access" },
        { signal: new AbortController().signal },
      );
      await expect(attempt).rejects.toBeInstanceOf(InvalidInputError);
    }
    expect(await Bun.file(join(dir.path, "ran")).exists()).toBe(false);
  });
});

describe("ending commands", () => {
  test.concurrent("a timeout kills the command within the bounds (case 21)", async () => {
    using dir = tempDir();
    const t = token();
    const result = await run(runner, dir.path, `sleep ${t}`, { ...full, timeoutMs: 1000 });
    expect(result).toMatchObject({
      timedOut: true,
      cancelled: false,
      exitCode: null,
      signal: "SIGTERM",
    });
    expect(result.durationMs).toBeLessThan(3000);
    expect(pidsWith(t)).toEqual([]);
  });

  test.concurrent("a command that ignores SIGTERM gets SIGKILL after the grace", async () => {
    using dir = tempDir();
    const t = token();
    const quick = makeRunner({ limits: { minTimeoutMs: 100, killGraceMs: 200 } });
    const result = await run(quick, dir.path, `trap '' TERM; sleep ${t}; echo survived`, {
      ...full,
      timeoutMs: 100,
    });
    expect(result).toMatchObject({ timedOut: true, signal: "SIGKILL", output: "" });
    expect(pidsWith(t)).toEqual([]);
  });

  test.concurrent("a timeout below the lower bound is raised to it", async () => {
    using dir = tempDir();
    const bounded = makeRunner({ limits: { minTimeoutMs: 300 } });
    const result = await run(bounded, dir.path, `sleep ${token()}`, { ...full, timeoutMs: 1 });
    expect(result.timedOut).toBe(true);
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
  });

  test.concurrent("cancel kills the shell and every grandchild in its group (case 22)", async () => {
    using dir = tempDir();
    const t = token();
    const abort = new AbortController();
    const watch = outputWatcher("ready");
    const sh = sleepScript(t);
    const script = `${sh.setup}; (sleep $T &); sleep $T & bash -c "sleep $T" & ${sh.ready(3)}; echo ready; wait`;
    const done = run(runner, dir.path, script, {
      ...full,
      signal: abort.signal,
      onOutput: watch.onOutput,
    });
    await watch.seen;
    expect(pidsWith(t).length).toBeGreaterThanOrEqual(3);
    abort.abort();
    expect(await done).toMatchObject({ cancelled: true, timedOut: false, output: "ready\n" });
    expect(pidsWith(t)).toEqual([]);
  });

  test.concurrent("children left in the background die when the shell exits", async () => {
    using dir = tempDir();
    const t = token();
    const result = await run(runner, dir.path, `sleep ${t} & echo started`, full);
    expect(result).toMatchObject({ exitCode: 0, output: "started\n", timedOut: false });
    expect(pidsWith(t)).toEqual([]);
  });

  test.concurrent("unsandboxed, a child that calls setsid leaves the group: documented, and no hang", async () => {
    using dir = tempDir();
    const t = token();
    // Started once its sleep runs: setsid has left the group before it execs sleep.
    const started = `until pgrep -f "^sleep ${t}$" >/dev/null; do sleep 0.01; done; echo started`;
    const result = await run(runner, dir.path, `setsid sleep ${t} & ${started}`, full);
    expect(result.output).toBe("started\n");
    expect(pidsWith(t).length).toBe(1);
    killAll(t);
  });

  test.concurrent("an already aborted signal spawns nothing", async () => {
    using dir = tempDir();
    const abort = new AbortController();
    abort.abort();
    const result = await run(runner, dir.path, "touch ran", { ...full, signal: abort.signal });
    expect(result).toMatchObject({ cancelled: true, exitCode: null });
    expect(await Bun.file(join(dir.path, "ran")).exists()).toBe(false);
  });

  test.concurrent("dispose kills running commands and refuses new ones", async () => {
    using dir = tempDir();
    const t = token();
    const own = makeRunner();
    const watch = outputWatcher("ready");
    const done = run(own, dir.path, `sleep ${t} & echo ready; wait`, {
      ...full,
      onOutput: watch.onOutput,
    });
    await watch.seen;
    await own[Symbol.asyncDispose]();
    expect(await done).toMatchObject({ cancelled: true });
    expect(pidsWith(t)).toEqual([]);
    await expect(run(own, dir.path, "true", full)).rejects.toBeInstanceOf(RunnerDisposedError);
  });
});
