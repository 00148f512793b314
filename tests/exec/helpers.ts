/** Shared setup for the command runner suites: temp dirs, runners, process lookups. */
import { afterAll } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../src/log.ts";
import { TEST_SANDBOX } from "../support/sandbox-choice.ts";
import { createCommandRunner } from "../../src/exec/runner.ts";
import type { CommandRunnerDeps } from "../../src/exec/runner.ts";
import type {
  CommandRequest,
  CommandResult,
  CommandRunner,
  RunOptions,
} from "../../src/exec/types.ts";

/** A realpath'd temp dir removed on dispose. */
export function tempDir(prefix = "dsh-exec-", parent = tmpdir()): { path: string } & Disposable {
  const path = realpathSync(mkdtempSync(join(parent, prefix)));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

/** The environment tests hand to runners: the real PATH and LANG, nothing else unless added. */
export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", ...extra };
}

/** A runner with quiet logging, the real bwrap, and a state dir that tests do not care about. */
export function makeRunner(overrides: Partial<CommandRunnerDeps> = {}): CommandRunner {
  return createCommandRunner({
    env: baseEnv(),
    sandbox: TEST_SANDBOX,
    home: "/nonexistent-home",
    stateDir: "/nonexistent-state",
    logger: silentLogger,
    ...overrides,
  });
}

/** Runs `command` in `dir` (cwd and workspace) with a live signal. */
export function run(
  runner: CommandRunner,
  dir: string,
  command: string,
  extra: Partial<CommandRequest> & Partial<RunOptions> = {},
): Promise<CommandResult> {
  const { signal, onOutput, ...request } = extra;
  return runner.run(
    { command, cwd: dir, workspace: dir, sandbox: "workspace-write", ...request },
    { signal: signal ?? new AbortController().signal, onOutput },
  );
}

/** A token no other process on the machine has in its argv (a fractional sleep duration). */
export function sleepToken(): string {
  return `1000.${Math.floor(Math.random() * 1e9)}`;
}

/** Hands out sleep tokens and kills their stragglers after the file's tests. */
export function trackedSleepTokens(): () => string {
  const tokens: string[] = [];
  afterAll(() => {
    for (const token of tokens) killAll(token);
  });
  return () => {
    const token = sleepToken();
    tokens.push(token);
    return token;
  };
}

/**
 * Shell text that sets `$T` to `token` and, via `ready`, waits until `count`
 * `sleep $T` processes exist (forked and exec'd), so "ready" means they really run. Only a
 * process whose argv starts with `sleep $T` counts, as in `pidsWith`: `setsid sleep $T`
 * shows that text before it execs sleep. The token never appears literally in the script, so
 * the shell's own argv does not count.
 */
export function sleepScript(token: string): { setup: string; ready(count: number): string } {
  const [whole, fraction] = token.split(".");
  const count = `n=0; for d in /proc/[0-9]*; do c=; { read -r c < "$d/comm"; } 2>/dev/null; [ "$c" = sleep ] || continue; case "$( { tr '\\0' ' ' < "$d/cmdline"; } 2>/dev/null)" in "sleep $T "*) n=$((n + 1));; esac; done`;
  return {
    setup: `T=${whole}.""${fraction}`,
    ready: (want) => `until ${count}; [ "$n" -ge ${want} ]; do :; done`,
  };
}

/** Pids of `sleep <token>` processes (not the shells whose command text mentions it). */
export function pidsWith(token: string): number[] {
  return processArgvs()
    .filter(({ argv }) => argv[0]?.endsWith("sleep") === true && argv[1] === token)
    .map(({ pid }) => pid);
}

/**
 * Every process's pid and argv: from /proc where there is one, else from `ps` (macOS), whose
 * argv is split at spaces (the tokens tests look for hold none).
 */
export function processArgvs(): { pid: number; argv: string[] }[] {
  if (!existsSync("/proc/self")) {
    const listed = Bun.spawnSync(["/bin/ps", "-axww", "-o", "pid=,args="]).stdout.toString();
    const found: { pid: number; argv: string[] }[] = [];
    for (const line of listed.split("\n")) {
      const match = /^\s*(\d+)\s+(.*)$/.exec(line);
      const last = found.at(-1);
      // An argument holding a newline (a sandbox profile) goes on over the next lines.
      if (match === null) last?.argv.push(...line.split(" "));
      else found.push({ pid: Number(match[1]), argv: (match[2] ?? "").split(" ") });
    }
    return found;
  }
  const found: { pid: number; argv: string[] }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      found.push({
        pid: Number(entry),
        argv: readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0"),
      });
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Kills stragglers after a failed assertion, so one failure does not leak processes. */
export function killAll(token: string): void {
  for (const pid of pidsWith(token)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

/** Resolves when `text` has appeared in the accumulated live output. */
export function outputWatcher(text: string): {
  onOutput: (chunk: string) => void;
  seen: Promise<void>;
} {
  const { promise, resolve } = Promise.withResolvers<void>();
  let all = "";
  return {
    onOutput(chunk) {
      all += chunk;
      if (all.includes(text)) resolve();
    },
    seen: promise,
  };
}
