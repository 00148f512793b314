/**
 * The command runner (architecture.md boundary 4): every command the model asks for runs
 * here, in the sandbox of the session's mode, with a scrubbed environment, a timeout, an
 * output cap, and a process-group kill that leaves no descendant behind.
 */
import { readFileSync } from "node:fs";
import { totalmem } from "node:os";
import { InvalidInputError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { CredentialScope } from "../permission/credentials.ts";
import type { NetworkService } from "../network/service.ts";
import type { SandboxPreference } from "../settings/table.ts";
import { openBackend, unavailableBackend } from "./backend.ts";
import type { Backend } from "./backend.ts";
import { sandboxedPlan, unsandboxedPlan } from "./command-plan.ts";
import type { CommandPlan, PlanContext } from "./command-plan.ts";
import { scrubEnv } from "./env.ts";
import { RunnerDisposedError } from "./errors.ts";
import { createCgroupMaker } from "./cgroup.ts";
import type { CommandCgroup } from "./cgroup.ts";
import { commandLimits, guessLimitHit, locatePrlimit, withinHardLimits } from "./limits.ts";
import type { CommandLimits } from "./limits.ts";
import type { WalkLimits } from "./git-entries.ts";
import { isExecutableFile, resolveShell } from "./locate.ts";
import { sharedSupervisor, tieToDsh } from "./lifetime.ts";
import { killGroupsSync } from "./process-group.ts";
import { cgroupsEmptied } from "./sandbox-gone.ts";
import { spawnCommand } from "./spawn.ts";
import type { SpawnLimits, SpawnResult } from "./spawn.ts";
import type {
  CommandRequest,
  CommandResult,
  CommandRunner,
  LimitHitReport,
  RunOptions,
  SandboxStatus,
} from "./types.ts";
import { findGitBash, noShellMessage, windowsStatus } from "./windows-shell.ts";
import { gitUserConfig, realDirectory } from "./workspace.ts";

export interface RunnerLimits extends SpawnLimits {
  readonly defaultTimeoutMs: number;
  readonly minTimeoutMs: number;
  readonly maxTimeoutMs: number;
  /** How long the backend probe may take. */
  readonly probeTimeoutMs: number;
}

const DEFAULT_LIMITS: RunnerLimits = {
  defaultTimeoutMs: 120_000,
  minTimeoutMs: 1_000,
  maxTimeoutMs: 600_000,
  headBytes: 32 * 1024,
  tailBytes: 32 * 1024,
  liveBytes: 256 * 1024,
  hardLimitBytes: 64 * 1024 * 1024,
  killGraceMs: 2_000,
  goneWithinMs: 5_000,
  probeTimeoutMs: 5_000,
};

export interface CommandRunnerDeps {
  /** The parent's environment; scrubbed before any child sees it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `DSH_SANDBOX`. */
  readonly sandbox: SandboxPreference;
  /** The user's home directory (credential stores under it are hidden from commands). */
  readonly home: string;
  /** Where the credential set lies (hidden from commands); the home alone when absent. */
  readonly credentials?: CredentialScope;
  /** dsh's own state directory: hidden from sandboxed commands (other projects' transcripts). */
  readonly stateDir: string;
  /**
   * Directories no sandboxed command may change, e.g. dsh's config directory; realpath'd and
   * kept read-only (or, when missing, uncreatable) under `workspace-write`.
   */
  readonly protectedDirs?: readonly string[];
  readonly logger: Logger;
  readonly limits?: Partial<RunnerLimits>;
  /** The `[env]` config table: names to pass through, secrets allowed on purpose. */
  readonly envConfig?: {
    readonly include?: readonly string[];
    readonly allowSecret?: readonly string[];
  };
  /** A specific bwrap to use instead of searching for one. */
  readonly bwrapPath?: string;
  /** Where host service sockets are looked for (`/run`, `/var/run` when absent). */
  readonly serviceRoots?: readonly string[];
  /** Bounds of each sandboxed command (`[limits]`); defaults from `commandLimits`. */
  readonly commandLimits?: CommandLimits;
  /** Bounds of the walk for `.git` entries around each `workspace-write` command. */
  readonly walkLimits?: WalkLimits;
  /**
   * The proxy sandboxed commands reach the network through; without it they have no network
   * at all. Commands outside the sandbox never use it.
   */
  readonly network?: NetworkService;
}

/**
 * Creates a runner. Nothing is probed until the first `sandbox()` or sandboxed `run()`, so
 * creating one is free on the start-up path. Dispose kills every running command.
 */
export function createCommandRunner(deps: CommandRunnerDeps): CommandRunner {
  const limits: RunnerLimits = { ...DEFAULT_LIMITS, ...deps.limits };
  const windows = process.platform === "win32";
  // Windows has no sandbox: Git Bash, when installed, runs commands outside one.
  const shell = windows ? findGitBash(deps.env, isExecutableFile) : resolveShell(deps.env.PATH);
  const live = new Map<symbol, { abort: AbortController; done: Promise<unknown> }>();
  // Process group ids of the commands running now.
  const groups = new Set<number>();
  const configured = deps.commandLimits ?? commandLimits(undefined, totalmem());
  let inherited: CommandLimits | undefined;
  const boundsOnce = (): CommandLimits => {
    inherited ??= withinHardLimits(configured, readTextOr("/proc/self/limits", ""));
    return inherited;
  };
  const prlimit = process.platform === "linux" ? locatePrlimit() : undefined;
  const cgroups = createCgroupMaker(deps.logger);
  // The kernel may call a cgroup busy for a moment after its last process exited: removing it
  // must not hold up the command's result. Dispose waits for these.
  const removals = new Set<Promise<void>>();
  const removeLater = (cgroup: CommandCgroup | undefined) => releaseInto(removals, cgroup);
  let warnedUnbounded = false;
  let backend: Promise<Backend> | undefined;
  let disposed = false;
  let reportedScrub = false;

  const openOnce = (): Promise<Backend> => {
    backend ??= windows
      ? Promise.resolve(unavailableBackend(windowsStatus(shell)))
      : openSandboxBackend(deps, limits.probeTimeoutMs);
    return backend;
  };
  // Last resort when dsh exits without disposing: nothing asynchronous runs in `exit`, so
  // the groups are killed and awaited synchronously, and none outlives the exit.
  const killAllOnExit = () => {
    for (const entry of live.values()) entry.abort.abort();
    if (!killGroupsSync(groups, limits.killGraceMs)) {
      deps.logger.warn("a command's process group was still there when dsh exited");
    }
  };

  const warnUnbounded = () => {
    if (warnedUnbounded) return;
    warnedUnbounded = true;
    deps.logger.warn(
      "as root, the kernel ignores RLIMIT_NPROC and no pids cgroup could be made: " +
        "the number of processes of a sandboxed command is not bounded",
    );
  };
  const context: PlanContext | undefined =
    shell === undefined
      ? undefined
      : planContext(deps, {
          shell,
          configured,
          bounds: boundsOnce,
          prlimit,
          backend: openOnce,
          cgroups,
          warnUnbounded,
        });

  /** The scrubbed environment of a planned command, with what its sandbox adds. */
  const environment = (plan: CommandPlan, cwd: string): Record<string, string> => {
    const { env, removed } = commandEnvironment(deps, plan, cwd, windows);
    if (!reportedScrub && removed.length > 0) {
      reportedScrub = true;
      deps.logger.info("commands do not get these environment variables", { names: removed });
    }
    return env;
  };

  /** Plans the command, runs it tied to dsh, then ends its sandbox and reports its bounds. */
  const execute = async (request: CommandRequest, options: RunOptions, signal: AbortSignal) => {
    if (context === undefined) throw new InvalidInputError(noShellMessage());
    const cwd = realDirectory(request.cwd, "cwd");
    const workspace = realDirectory(request.workspace, "workspace");
    const { sandbox } = request;
    const plan =
      sandbox === "danger-full-access"
        ? unsandboxedPlan(context, request.command)
        : await sandboxedPlan(context, { ...request, sandbox }, cwd, workspace);
    let released = false;
    const release = (settled = true) => {
      if (released) return [];
      released = true;
      removeLater(plan.cgroup);
      return plan.release(settled);
    };
    try {
      const env = environment(plan, cwd);
      const timeoutMs =
        request.background === true
          ? UNTIMED_MS
          : clampTimeout(request.timeoutMs ?? limits.defaultTimeoutMs, limits);
      const spawned = { cwd, env, timeoutMs, signal, groups };
      const { result, settled } = await spawnSettled(deps.logger, limits, plan, spawned, options);
      const limitHit = limitReport(result, plan);
      const notes = release(settled);
      const withHit = limitHit === undefined ? result : { ...result, limitHit };
      return notes.length === 0
        ? withHit
        : { ...withHit, output: `${withHit.output}\n${notes.join("\n")}` };
    } finally {
      release();
    }
  };

  return {
    async run(request: CommandRequest, options: RunOptions): Promise<CommandResult> {
      if (disposed) throw new RunnerDisposedError();
      const abort = new AbortController();
      const signal = AbortSignal.any([options.signal, abort.signal]);
      const key = Symbol("run");
      const done = execute(request, options, signal);
      if (live.size === 0) process.on("exit", killAllOnExit);
      live.set(key, { abort, done });
      try {
        return await done;
      } finally {
        live.delete(key);
        if (live.size === 0) process.off("exit", killAllOnExit);
      }
    },
    sandbox(): Promise<SandboxStatus> {
      return openOnce().then((opened) => opened.status);
    },
    async [Symbol.asyncDispose](): Promise<void> {
      disposed = true;
      const running = [...live.values()];
      for (const entry of running) entry.abort.abort();
      await Promise.allSettled(running.map((entry) => entry.done));
      await Promise.allSettled([...removals]);
      await cgroups.close();
      (await backend)?.close();
    },
  };
}

/** Probes and opens the sandbox backend of `deps.sandbox` (never on Windows), logging what it found. */
function openSandboxBackend(deps: CommandRunnerDeps, probeTimeoutMs: number): Promise<Backend> {
  return openBackend({
    preference: deps.sandbox,
    platform: process.platform,
    bwrapPath: deps.bwrapPath,
    path: deps.env.PATH,
    home: deps.home,
    credentials: deps.credentials,
    stateDir: deps.stateDir,
    protectedDirs: deps.protectedDirs,
    runtimeDir: deps.env.XDG_RUNTIME_DIR,
    serviceRoots: deps.serviceRoots,
    git: gitUserConfig(deps.home, deps.env),
    walkLimits: deps.walkLimits,
    probeTimeoutMs,
    logger: deps.logger,
  }).then((opened) => {
    const { backend: name, ok, reason } = opened.status;
    deps.logger.info("sandbox probe", { backend: name, ok, reason });
    return opened;
  });
}

/** What planning a command needs beside the runner's deps. */
type PlanParts = Omit<PlanContext, "supervised" | "home" | "network" | "logger">;

/** The context every command of one runner is planned in. */
function planContext(deps: CommandRunnerDeps, parts: PlanParts): PlanContext {
  return {
    ...parts,
    get supervised() {
      return sharedSupervisor(deps.logger) !== undefined;
    },
    home: deps.home,
    network: deps.network,
    logger: deps.logger,
  };
}

/**
 * The scrubbed environment of a planned command, with what its sandbox adds, and the names
 * the scrub removed.
 */
function commandEnvironment(
  deps: CommandRunnerDeps,
  plan: CommandPlan,
  cwd: string,
  windows: boolean,
): { env: Record<string, string>; removed: readonly string[] } {
  const scrubbed = scrubEnv(deps.env, {
    ...deps.envConfig,
    backend: plan.backend,
    home: deps.home,
    cwd,
    proxyPort: plan.network?.port,
    windows,
  });
  return { env: { ...scrubbed.env, ...plan.env?.(scrubbed.env) }, removed: scrubbed.removed };
}

/** Starts releasing `cgroup`, kept in `removals` until done. */
function releaseInto(removals: Set<Promise<void>>, cgroup: CommandCgroup | undefined): void {
  if (cgroup === undefined) return;
  const removal = cgroup.release().finally(() => removals.delete(removal));
  removals.add(removal);
}

/** Where and how one planned command runs. */
interface SpawnedCommand {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** The runner's live process groups, which the command's joins. */
  readonly groups: Set<number>;
}

/**
 * Runs a planned command until it ends, then waits for the last of it to be gone (its group,
 * its cgroup): the check after it runs once nothing of it is left to change the workspace, and
 * `settled` is false when something was still there at the end of the wait.
 */
async function spawnSettled(
  logger: Logger,
  limits: RunnerLimits,
  plan: CommandPlan,
  command: SpawnedCommand,
  options: RunOptions,
): Promise<{ result: CommandResult; settled: boolean }> {
  const { lingering, ...result } = await spawnPlanned(logger, limits, plan, command, options);
  const files = plan.cgroup?.procsFiles ?? [];
  const settled = !lingering && (await cgroupsEmptied(files, limits.goneWithinMs ?? 0));
  return { result, settled };
}

/** Runs a planned command tied to dsh (its supervisor, its cgroup) until it ends. */
async function spawnPlanned(
  logger: Logger,
  limits: RunnerLimits,
  plan: CommandPlan,
  command: SpawnedCommand,
  options: RunOptions,
): Promise<SpawnResult> {
  const tie = await tieToDsh(plan.argv, {
    logger,
    mergeStderr: true,
    cgroupProcs: plan.cgroup?.procsFiles,
    rlimits: plan.chainLimits,
    gateFd: 3 + plan.fds.length,
  });
  return spawnCommand({
    argv: tie.argv,
    cwd: command.cwd,
    env: command.env,
    extraFds: plan.fds,
    timeoutMs: command.timeoutMs,
    limits,
    signal: command.signal,
    onOutput: options.onOutput,
    logger,
    graceful: plan.backend !== "bwrap",
    groups: command.groups,
    within: plan.network?.attach.type === "namespace" ? plan.network.attach.within : undefined,
    tie,
    sandboxInit: plan.sandboxInit,
  });
}

/**
 * The bound a sandboxed command ran into: its cgroup knows; else, under rlimits, its failure
 * output tells (memory only where bwrap bounds it).
 */
function limitReport(result: CommandResult, plan: CommandPlan): LimitHitReport | undefined {
  const counted = plan.cgroup?.hit();
  // A timeout counts: a command whose forks fail may retry until it runs out of time.
  const failed = result.exitCode !== 0 && !result.cancelled;
  const guessed = plan.rlimited && failed ? guessLimitHit(result.output) : undefined;
  const memoryBounded = plan.backend === "bwrap";
  const limit = counted ?? (guessed === "memory" && !memoryBounded ? undefined : guessed);
  if (limit === undefined) return undefined;
  const { bounds } = plan;
  const value = limit === "processes" ? bounds.processes : bounds.memoryBytes / (1024 * 1024);
  return { limit, value, certain: counted !== undefined };
}

function readTextOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return fallback;
  }
}

/** The longest timer there is (about 24 days): a background command runs until it is ended. */
const UNTIMED_MS = 2_147_483_647;

function clampTimeout(ms: number, limits: RunnerLimits): number {
  return Math.min(limits.maxTimeoutMs, Math.max(limits.minTimeoutMs, Math.round(ms)));
}
