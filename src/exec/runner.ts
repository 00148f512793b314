/**
 * The command runner (architecture.md boundary 4): every command the model asks for runs
 * here, in the sandbox of the session's mode, with a scrubbed environment, a timeout, an
 * output cap, and a process-group kill that leaves no descendant behind.
 */
import { readFileSync } from "node:fs";
import { totalmem } from "node:os";
import { resolve } from "node:path";
import { InvalidInputError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { isWithin, realpathOr } from "../paths.ts";
import type { CredentialScope } from "../permission/credentials.ts";
import type { CommandNetwork, NetworkService } from "../network/service.ts";
import type { SandboxBackend, SandboxPreference } from "../settings/table.ts";
import { openBackend, unavailableBackend } from "./backend.ts";
import type { Backend } from "./backend.ts";
import { scrubEnv } from "./env.ts";
import { RunnerDisposedError, SandboxUnavailableError } from "./errors.ts";
import { createCgroupMaker } from "./cgroup.ts";
import type { CommandCgroup } from "./cgroup.ts";
import {
  commandLimits,
  guessLimitHit,
  limitArgv,
  locatePrlimit,
  ulimitArgv,
  withinHardLimits,
} from "./limits.ts";
import type { CommandLimits } from "./limits.ts";
import type { WalkLimits } from "./git-entries.ts";
import { isExecutableFile, resolveShell } from "./locate.ts";
import { sharedSupervisor, tieToDsh } from "./lifetime.ts";
import { killGroupsSync } from "./process-group.ts";
import { spawnCommand } from "./spawn.ts";
import type { SpawnLimits } from "./spawn.ts";
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
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: `execute` below is being reworked into one plan and one pipeline; this function is split once that lands.
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
  const removeLater = (cgroup: CommandCgroup | undefined) => {
    if (cgroup === undefined) return;
    const removal = cgroup.remove().finally(() => removals.delete(removal));
    removals.add(removal);
  };
  let warnedUnbounded = false;
  let backend: Promise<Backend> | undefined;
  let disposed = false;
  let reportedScrub = false;

  const openOnce = (): Promise<Backend> => {
    if (windows) {
      backend ??= Promise.resolve(unavailableBackend(windowsStatus(shell)));
      return backend;
    }
    backend ??= openBackend({
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
      probeTimeoutMs: limits.probeTimeoutMs,
      logger: deps.logger,
    }).then((opened) => {
      const { backend: name, ok, reason } = opened.status;
      deps.logger.info("sandbox probe", { backend: name, ok, reason });
      return opened;
    });
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

  const execute = async (request: CommandRequest, options: RunOptions, signal: AbortSignal) => {
    if (shell === undefined) throw new InvalidInputError(noShellMessage());
    const cwd = realDirectory(request.cwd, "cwd");
    const workspace = realDirectory(request.workspace, "workspace");
    const extraWorkspaces = (request.extraWorkspaces ?? []).map((dir) =>
      realDirectory(dir, "added directory"),
    );
    // stderr goes into stdout inside the child, so the two arrive in their true order: the
    // supervisor chain does it, else a wrapper shell. `--` keeps a command that starts with a
    // dash from being read as a shell option.
    const chain = sharedSupervisor(deps.logger);
    let argv =
      chain === undefined
        ? [shell, "-c", 'exec "$0" -c -- "$1" 2>&1', shell, request.command]
        : [shell, "-c", "--", request.command];
    let backendName: SandboxBackend = "none";
    let release: () => string[] = () => [];
    let extraFds: readonly number[] = [];
    let sandboxEnv: ((env: Readonly<Record<string, string>>) => Record<string, string>) | undefined;
    let cgroup: CommandCgroup | undefined;
    let bounds = configured;
    let rlimited = false;
    let network: CommandNetwork | undefined;
    if (request.sandbox !== "danger-full-access") {
      const opened = await openOnce();
      if (!opened.status.ok) throw new SandboxUnavailableError(opened.status);
      if (request.sandbox === "workspace-write") {
        for (const root of [workspace, ...extraWorkspaces]) refuseBroadWorkspace(root, deps.home);
      }
      const hidden = opened.hidden(cwd, workspace);
      if (hidden !== undefined) {
        throw new InvalidInputError(`cwd ${cwd} is outside the sandbox's view: ${hidden}`, { cwd });
      }
      backendName = opened.status.backend === "seatbelt" ? "seatbelt" : "bwrap";
      // Inside bwrap, so RLIMIT_NPROC counts in the command's own user namespace; on macOS the
      // shell's ulimit, which counts all of the user's processes.
      rlimited = backendName === "seatbelt" || (backendName === "bwrap" && prlimit !== undefined);
      bounds = boundsOnce();
      const bounded =
        backendName === "seatbelt"
          ? ulimitArgv(shell, bounds.processes, request.command)
          : rlimited && prlimit !== undefined
            ? limitArgv(prlimit, bounds, argv)
            : argv;
      // Without its network the command still runs, with none (as bwrap gives it).
      network = await deps.network?.open(request.network, backendName).catch((error: unknown) => {
        deps.logger.warn("the command runs without network: its proxy could not be opened", {
          error,
        });
        return undefined;
      });
      const attach = network?.attach;
      // The bridge runs outside the command's rlimits: its runtime reserves memory and threads.
      const inner = attach?.type === "bridge" ? [...attach.bridge, "--", ...bounded] : bounded;
      let wrapped: ReturnType<Backend["wrap"]>;
      try {
        wrapped = opened.wrap(
          { mode: request.sandbox, workspace, cwd, network: attach, extraWorkspaces },
          inner,
        );
      } catch (error) {
        network?.close();
        throw error;
      }
      argv = wrapped.argv;
      extraFds = wrapped.fds;
      sandboxEnv = wrapped.env;
      const commandNetwork = network;
      release = () => [...wrapped.close(), ...(commandNetwork?.close() ?? [])];
      if (backendName === "bwrap" && chain !== undefined) cgroup = cgroups.create(bounds);
      if (!warnedUnbounded && process.getuid?.() === 0 && !cgroup?.controllers.includes("pids")) {
        warnedUnbounded = true;
        deps.logger.warn(
          "as root, the kernel ignores RLIMIT_NPROC and no pids cgroup could be made: " +
            "the number of processes of a sandboxed command is not bounded",
        );
      }
    }
    const scrubbed = scrubEnv(deps.env, {
      ...deps.envConfig,
      backend: backendName,
      home: deps.home,
      cwd,
      proxyPort: network?.port,
      windows,
    });
    Object.assign(scrubbed.env, sandboxEnv?.(scrubbed.env));
    if (!reportedScrub && scrubbed.removed.length > 0) {
      reportedScrub = true;
      deps.logger.info("commands do not get these environment variables", {
        names: scrubbed.removed,
      });
    }
    const tie = await tieToDsh(argv, {
      logger: deps.logger,
      mergeStderr: true,
      cgroupProcs: cgroup?.procsFiles,
      gateFd: 3 + extraFds.length,
    });
    argv = tie.argv;
    try {
      const result = await spawnCommand({
        argv,
        cwd,
        env: scrubbed.env,
        extraFds,
        timeoutMs: clampTimeout(request.timeoutMs ?? limits.defaultTimeoutMs, limits),
        limits,
        signal,
        onOutput: options.onOutput,
        logger: deps.logger,
        graceful: backendName !== "bwrap",
        groups,
        within: network?.attach.type === "namespace" ? network.attach.within : undefined,
        tie,
      });
      const limitHit = limitReport(result, cgroup, rlimited, bounds, backendName === "bwrap");
      removeLater(cgroup);
      const notes = release();
      const withHit = limitHit === undefined ? result : { ...result, limitHit };
      return notes.length === 0
        ? withHit
        : { ...withHit, output: `${withHit.output}\n${notes.join("\n")}` };
    } catch (error) {
      removeLater(cgroup);
      release();
      throw error;
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
      (await backend)?.close();
    },
  };
}

/**
 * The bound a sandboxed command ran into: its cgroup knows; else, under rlimits, its failure
 * output tells.
 */
function limitReport(
  result: CommandResult,
  cgroup: CommandCgroup | undefined,
  rlimited: boolean,
  bounds: CommandLimits,
  memoryBounded: boolean,
): LimitHitReport | undefined {
  const counted = cgroup?.hit();
  // A timeout counts: a command whose forks fail may retry until it runs out of time.
  const failed = result.exitCode !== 0 && !result.cancelled;
  const guessed = rlimited && failed ? guessLimitHit(result.output) : undefined;
  const limit = counted ?? (guessed === "memory" && !memoryBounded ? undefined : guessed);
  if (limit === undefined) return undefined;
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

function clampTimeout(ms: number, limits: RunnerLimits): number {
  return Math.min(limits.maxTimeoutMs, Math.max(limits.minTimeoutMs, Math.round(ms)));
}

/**
 * A writable `/`, home directory or ancestor of it would leave nothing worth sandboxing. The
 * workspace is a realpath, so home is compared both as given and resolved through symlinks.
 */
function refuseBroadWorkspace(workspace: string, home: string): void {
  const homes = [resolve(home), realpathOr(resolve(home))];
  if (workspace === "/" || homes.some((path) => isWithin(workspace, path))) {
    throw new InvalidInputError(
      `refusing to make ${workspace} writable in the sandbox: it is / or contains your home ` +
        "directory; open a project directory instead, or choose danger-full-access",
      { workspace },
    );
  }
}
