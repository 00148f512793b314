/**
 * Proves a sandbox backend works by running a real minimal sandboxed command with the full
 * argument plan (`bwrap --version` proves nothing), and turns a failure into a reason and
 * the fix an administrator can apply.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "../log.ts";
import type { BwrapFeatures } from "./bwrap.ts";
import type { DirCalls } from "./dir-calls.ts";
import { bwrapArgs } from "./bwrap.ts";
import { credentialMasks, stateDirMasks } from "./guards.ts";
import { hostServiceMasks } from "./host-services.ts";
import { coveredByBwrap, kernelInterfaces } from "./kernel-guards.ts";
import { tieToDsh } from "./lifetime.ts";
import { findExecutable, isExecutableFile, untrustedReason } from "./locate.ts";
import { seccompFd, seccompProgram } from "./seccomp.ts";
import type { SandboxStatus } from "./types.ts";
import { protectWorkspace } from "./workspace-guards.ts";

export interface BwrapProbeInput {
  /** The located bwrap, or undefined when none was found. */
  readonly bwrap: string | undefined;
  /** The bwrap was configured by name, so the user's own file is trusted too. */
  readonly configured: boolean;
  readonly home: string;
  readonly stateDir: string;
  readonly runtimeDir?: string;
  /** Where host service sockets are looked for; `SERVICE_ROOTS` when absent. */
  readonly serviceRoots?: readonly string[];
  readonly path: string | undefined;
  /** How the scratch workspace is walked, as every workspace is. */
  readonly calls: DirCalls;
  readonly timeoutMs: number;
  readonly logger: Logger;
}

export interface BwrapProbeResult {
  readonly status: SandboxStatus;
  /** Present when the probe passed. */
  readonly features?: BwrapFeatures;
  /** The seccomp program, when the probe passed with it. */
  readonly program?: Uint8Array;
  /** The global `/proc` entries to bind read-only: those bwrap's `--proc` leaves writable. */
  readonly kernel?: readonly string[];
}

const INSTALL_FIX =
  "install bubblewrap from the distribution (Debian/Ubuntu: apt-get install bubblewrap; " +
  "Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap), or run dsh inside a VM or " +
  "container and choose the danger-full-access preset";

/** Runs `bwrap <full plan> -- /bin/true` against a scratch workspace. Never throws. */
export async function probeBwrap(input: BwrapProbeInput): Promise<BwrapProbeResult> {
  const fail = (reason: string, fix: string): BwrapProbeResult => ({
    status: { backend: "bwrap", ok: false, reason, fix },
  });
  if (input.bwrap === undefined || !isExecutableFile(input.bwrap)) {
    return fail("bubblewrap (bwrap) is not installed", INSTALL_FIX);
  }
  const untrusted = untrustedReason(input.bwrap, input.configured ? process.getuid?.() : undefined);
  if (untrusted !== undefined)
    return fail(`refusing to use ${input.bwrap}: ${untrusted}`, INSTALL_FIX);
  const version = await runQuiet([input.bwrap, "--version"], input.timeoutMs, input.logger);
  if (version.code !== 0)
    return { status: { backend: "bwrap", ok: false, ...explainBwrapFailure(version) } };
  const features = { disableUserns: atLeast(version.stdout, [0, 8]) };
  const scratch = mkdtempSync(join(tmpdir(), "dsh-probe-"));
  try {
    // Built afresh for each attempt: a masked path can vanish between the plan and the mounts.
    const plan = () => ({
      mode: "workspace-write" as const,
      workspace: scratch,
      cwd: scratch,
      guards: protectWorkspace(scratch, {
        stateDir: input.stateDir,
        git: { home: input.home },
        walk: { calls: input.calls },
      }).guards,
      masks: [...credentialMasks({ home: input.home }), ...stateDirMasks(input.stateDir, scratch)],
      services: hostServiceMasks(input.runtimeDir, input.serviceRoots),
      kernel,
      network: false,
    });
    // What the sandbox mounted: which kernel entries bwrap's own `--proc` covers already.
    const catPath = findExecutable("cat", ["/bin/cat", "/usr/bin/cat"], input.path) ?? "/bin/cat";
    const kernel = kernelInterfaces();
    const once = async (program: Uint8Array | undefined) => {
      const filter = program === undefined ? undefined : seccompFd(program);
      try {
        const args = bwrapArgs(plan(), { ...features, seccompFd: filter && 3 }, [
          catPath,
          "/proc/self/mountinfo",
        ]);
        return await runQuiet(
          [input.bwrap ?? "bwrap", ...args],
          input.timeoutMs,
          input.logger,
          filter?.fd,
        );
      } finally {
        filter?.close();
      }
    };
    const attempt = async (program: Uint8Array | undefined) => {
      let run = await once(program);
      for (let retry = 0; retry < PROBE_RETRIES && vanished(run); retry++)
        run = await once(program);
      return run;
    };
    const program = seccompProgram(process.arch);
    const filtered = program === undefined ? undefined : await attempt(program);
    const left = (run: QuietRun) => {
      const covered = coveredByBwrap(kernel, run.stdout);
      return kernel.filter((entry) => !covered.includes(entry));
    };
    if (filtered?.code === 0) {
      return { status: { backend: "bwrap", ok: true }, features, program, kernel: left(filtered) };
    }
    // A kernel without seccomp filters still gets the namespaces.
    const run = await attempt(undefined);
    if (run.code !== 0) {
      return { status: { backend: "bwrap", ok: false, ...explainBwrapFailure(run) } };
    }
    return { status: { backend: "bwrap", ok: true }, features, kernel: left(run) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** How often a probe whose masked path vanished under it (a service restarting) is run again. */
const PROBE_RETRIES = 2;

/** bwrap found a path of the plan gone: a race with the host, not a broken sandbox. */
function vanished(run: QuietRun): boolean {
  return run.code !== 0 && /Can't (create file at|find source path|mkdir)/.test(run.stderr);
}

export interface QuietRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** Classifies bwrap's complaint (sandbox.md §3.3) into a reason and an admin's fix. */
export function explainBwrapFailure(run: QuietRun): { reason: string; fix: string } {
  const said = firstLine(run.stderr);
  if (run.timedOut) {
    return {
      reason: "the sandbox probe did not finish within its time limit",
      fix: "check the machine's load and run `dsh doctor` again",
    };
  }
  if (/setting up uid map|RTM_NEWADDR|uid_map/i.test(run.stderr)) {
    return {
      reason: `AppArmor forbids unprivileged user namespaces (${said})`,
      fix:
        "allow bwrap an AppArmor profile with userns (Ubuntu: the bwrap-userns-restrict profile), " +
        "or set the sysctl kernel.apparmor_restrict_unprivileged_userns=0",
    };
  }
  if (
    /No permissions to create|Creating new namespace failed|ENOSPC|max_user_namespaces/i.test(
      run.stderr,
    )
  ) {
    return {
      reason: `user namespaces are disabled or exhausted (${said})`,
      fix:
        "enable unprivileged user namespaces (sysctl user.max_user_namespaces=15000, or " +
        "kernel.unprivileged_userns_clone=1 on older Debian kernels); inside Docker, run the " +
        "container with a seccomp profile that allows unshare/clone of namespaces, or choose " +
        "danger-full-access inside the container",
    };
  }
  if (/make \/ slave|mount|remount/i.test(run.stderr)) {
    return {
      reason: `the container or host forbids the mounts the sandbox needs (${said})`,
      fix:
        "run the container with a policy that allows mounts in user namespaces (e.g. Docker " +
        "--security-opt seccomp=unconfined --security-opt apparmor=unconfined), or choose " +
        "danger-full-access inside the container",
    };
  }
  return {
    reason: `bwrap failed: ${said || `exit status ${run.code}`}`,
    fix:
      "run `bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all true` to see why; " +
      INSTALL_FIX,
  };
}

const PROBE_ENV = {
  PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  LANG: "C",
};

/**
 * Runs `argv` tied to dsh's lifetime: a probe that hangs must not outlive a killed dsh.
 * `started` sees the process as soon as it runs. Never throws.
 */
export async function runQuiet(
  argv: readonly string[],
  timeoutMs: number,
  logger: Logger,
  fd3?: number,
  started?: (pid: number) => void,
): Promise<QuietRun> {
  try {
    const extra = fd3 === undefined ? [] : [fd3];
    const tie = await tieToDsh(argv, { logger, mergeStderr: false, gateFd: 3 + extra.length });
    const proc = Bun.spawn(tie.argv, {
      // The probe's children get no inherited environment: nothing of dsh's (its API key
      // included) may reach a child process.
      env: PROBE_ENV,
      stdio: ["ignore", "pipe", "pipe", ...extra, ...tie.stdio],
      timeout: timeoutMs,
      killSignal: "SIGKILL",
      // Its own group where the watchdog holds groups; elsewhere as before.
      detached: process.platform === "darwin",
      windowsHide: true,
    });
    const untie = tie.started(proc);
    started?.(proc.pid);
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    untie();
    return { code, stdout, stderr, timedOut: proc.signalCode === "SIGKILL" };
  } catch (error) {
    return { code: null, stdout: "", stderr: String(error), timedOut: false };
  }
}

function atLeast(versionText: string, wanted: readonly [number, number]): boolean {
  const match = /(\d+)\.(\d+)/.exec(versionText);
  const major = Number(match?.[1] ?? 0);
  const minor = Number(match?.[2] ?? 0);
  return major > wanted[0] || (major === wanted[0] && minor >= wanted[1]);
}

/** The first line of `text`, trimmed. */
export function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.trim() ?? "";
}
