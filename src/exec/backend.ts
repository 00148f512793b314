/**
 * Picks the sandbox backend for `DSH_SANDBOX` and the platform, probes it, and wraps argv
 * for it. `none` is no backend at all: sandboxed modes then fail closed.
 */
import { lstatSync } from "node:fs";
import { InvalidInputError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { gitControlPaths } from "../permission/git-repository.ts";
import type { GitUserConfig } from "../permission/git-repository.ts";
import { checkAfterCommand } from "./after-command.ts";
import type { DirCalls } from "./dir-calls.ts";
import { findGitEntries } from "./git-entries.ts";
import type { GitEntryCache, WalkLimits, WalkOptions } from "./git-entries.ts";
import { loadDirCalls } from "./load-dir-calls.ts";
import { bwrapArgs, locateBwrap } from "./bwrap.ts";
import { SandboxUnavailableError } from "./errors.ts";
import type { CredentialScope } from "../permission/credentials.ts";
import { isWithin, realpathOr } from "../paths.ts";
import { createCredentialMasker, credentialPaths, stateDirMasks, storePins } from "./guards.ts";
import { loadFileLocks } from "./file-lock.ts";
import { SANDBOX_EXCLUDES, excludesEnv, placeholderExcludes } from "./git-excludes.ts";
import { hostServiceMasks } from "./host-services.ts";
import { createPlaceholders } from "./placeholders.ts";
import { kernelInterfaces } from "./kernel-guards.ts";
import { probeBwrap, probeSeatbelt } from "./probe.ts";
import { seccompFd } from "./seccomp.ts";
import { namesToKeep, seatbeltArgs } from "./seatbelt.ts";
import type { SandboxAttach } from "../network/service.ts";
import type { SandboxPreference } from "../settings/table.ts";
import type { SandboxStatus } from "./types.ts";
import { projectConfigMasks } from "./project-config-guards.ts";
import { protectWorkspace, refuseRedirectedGit } from "./workspace-guards.ts";

export interface WrapInput {
  readonly mode: "read-only" | "workspace-write";
  /** Realpaths. */
  readonly workspace: string;
  readonly cwd: string;
  /** How the command reaches dsh's proxy; no network at all when absent. */
  readonly network?: SandboxAttach;
}

export interface Wrapped {
  readonly argv: string[];
  /** Parent fds the child gets as fd 3, 4, ...; `close` them once the command ended. */
  readonly fds: readonly number[];
  /** Variables the command gets on top of its scrubbed environment, given that one. */
  env?(scrubbed: Readonly<Record<string, string>>): Record<string, string>;
  /**
   * Ends the command's sandbox once the command has exited: closes the fds and undoes what
   * the command may not leave in the workspace. Returns notes for the model; never throws.
   */
  close(): string[];
}

export interface Backend {
  readonly status: SandboxStatus;
  /** The argv to spawn and the guards it set up; only when `status.ok`. */
  wrap(input: WrapInput, argv: readonly string[]): Wrapped;
  /** Why `path` is not visible inside the sandbox, or undefined when it is. */
  hidden(path: string, workspace: string): string | undefined;
  /** Undoes what outlives commands (lingering placeholders); once none runs. Never throws. */
  close(): void;
}

export interface BackendOptions {
  readonly preference: SandboxPreference;
  readonly platform: NodeJS.Platform;
  /** Overrides the bwrap location (a test or `dsh doctor` may point at another one). */
  readonly bwrapPath?: string;
  readonly path: string | undefined;
  readonly home: string;
  /** Where the credential set lies; the home alone when absent. */
  readonly credentials?: CredentialScope;
  readonly stateDir: string;
  /** dsh's config directories: read-only under `workspace-write`. */
  readonly protectedDirs?: readonly string[];
  /** The parent's `XDG_RUNTIME_DIR`, hidden like `/run/user` when it lies elsewhere. */
  readonly runtimeDir?: string;
  /** Where host service sockets are looked for; `SERVICE_ROOTS` when absent. */
  readonly serviceRoots?: readonly string[];
  /** Where the user's own git config lies (its hook paths and includes are protected too). */
  readonly git?: GitUserConfig;
  /** Bounds of the walk for `.git` entries before and after each command (`[limits]`). */
  readonly walkLimits?: WalkLimits;
  readonly probeTimeoutMs: number;
  readonly logger: Logger;
}

/** Probes the preferred backend. Never throws: a broken backend is a status, not an error. */
export async function openBackend(options: BackendOptions): Promise<Backend> {
  const kind = chooseKind(options.preference, options.platform);
  if (kind === "bwrap") return openBwrap(options);
  if (kind === "seatbelt") return openSeatbelt(options);
  return unavailable({ backend: "none", ok: false, ...noBackendReason(options) });
}

function chooseKind(preference: SandboxPreference, platform: NodeJS.Platform) {
  if (preference === "auto") {
    if (platform === "linux") return "bwrap";
    if (platform === "darwin") return "seatbelt";
    return "none";
  }
  if (preference === "bwrap" && platform === "linux") return "bwrap";
  if (preference === "seatbelt" && platform === "darwin") return "seatbelt";
  return "none";
}

function noBackendReason(options: BackendOptions): { reason: string; fix: string } {
  const fullAccess = "choose the danger-full-access preset to run commands unsandboxed on purpose";
  if (options.preference === "none") {
    return {
      reason: "sandboxing is turned off (DSH_SANDBOX=none)",
      fix: `unset DSH_SANDBOX or set it to auto, or ${fullAccess}`,
    };
  }
  if (options.preference === "auto") {
    return {
      reason: `dsh has no sandbox backend for ${options.platform} yet`,
      fix: `run dsh in a VM or container and ${fullAccess}`,
    };
  }
  return {
    reason: `the ${options.preference} backend does not exist on ${options.platform}`,
    fix: `set DSH_SANDBOX=auto, or ${fullAccess}`,
  };
}

async function openBwrap(options: BackendOptions): Promise<Backend> {
  const calls = await callsOrFailure();
  if (typeof calls === "string") {
    return unavailable({
      backend: "bwrap",
      ok: false,
      reason: `dsh cannot check what commands leave in the project: ${calls}`,
      fix: "use the dsh build for this system's C library (glibc or musl), or choose danger-full-access",
    });
  }
  const bwrap = options.bwrapPath ?? locateBwrap(options.path);
  const probe = await probeBwrap({
    bwrap,
    configured: options.bwrapPath !== undefined,
    home: options.home,
    stateDir: options.stateDir,
    runtimeDir: options.runtimeDir,
    serviceRoots: options.serviceRoots,
    path: options.path,
    calls,
    timeoutMs: options.probeTimeoutMs,
    logger: options.logger,
  });
  const { features, program } = probe;
  if (bwrap === undefined || features === undefined || !probe.status.ok) {
    return unavailable(probe.status);
  }
  const privateRoots = ["/tmp", "/dev", "/proc"];
  // What commands created and dsh could not undo: later commands there are refused.
  const unsafe = new Set<string>();
  const walks = walksByWorkspace(calls, options.walkLimits);
  // The kernel's entries do not change while dsh runs.
  const kernel = kernelInterfaces();
  const credentialMasks = createCredentialMasker(options.credentials ?? { home: options.home });
  const placeholders = createPlaceholders({
    stateDir: options.stateDir,
    locks: await loadFileLocks(),
    logger: options.logger,
  });
  return {
    status: probe.status,
    wrap(input, argv) {
      refuseUnsafe(unsafe, input.workspace);
      refuseRedirectedGit(input.workspace);
      const masks = [...credentialMasks(), ...stateDirMasks(options.stateDir, input.workspace)];
      const writable = input.mode === "workspace-write";
      const git = options.git ?? { home: options.home };
      // Held from before any placeholder is made until the command has ended.
      const hold = writable ? placeholders.hold(input.workspace) : undefined;
      try {
        const protection = writable
          ? protectWorkspace(input.workspace, {
              stateDir: options.stateDir,
              protectedDirs: options.protectedDirs,
              pinned: storePins(masks, input.workspace),
              placeholder: hold?.make,
              git,
              walk: walks(input.workspace),
            })
          : undefined;
        hold?.seal();
        const services = hostServiceMasks(options.runtimeDir, options.serviceRoots);
        const guards = protection?.guards ?? [];
        // git in the sandbox must not stage the placeholders (`git-excludes.ts`).
        const standing = hold?.placeholders() ?? [];
        const excludes =
          hold === undefined || standing.length === 0
            ? undefined
            : hold.keep(placeholderExcludes(input.workspace, standing, git));
        const plan = {
          ...input,
          guards,
          masks,
          services,
          kernel,
          tmpFiles: excludes === undefined ? [] : [{ source: excludes, dest: SANDBOX_EXCLUDES }],
          network: input.network?.type === "namespace",
          proxySocket: input.network?.type === "bridge" ? input.network.socket : undefined,
        };
        const filter = program === undefined ? undefined : seccompFd(program);
        const wrapped = [bwrap, ...bwrapArgs(plan, { ...features, seccompFd: filter && 3 }, argv)];
        let closed = false;
        const close = () => {
          if (closed) return [];
          closed = true;
          filter?.close();
          if (protection === undefined) return [];
          try {
            const after = checkAfterCommand(
              input.workspace,
              protection,
              options.logger,
              walks(input.workspace),
            );
            for (const path of after.unsafe) unsafe.add(path);
            return after.notes;
          } finally {
            hold?.release();
          }
        };
        return {
          argv: wrapped,
          fds: filter === undefined ? [] : [filter.fd],
          ...(excludes === undefined
            ? {}
            : { env: (scrubbed) => excludesEnv(scrubbed, SANDBOX_EXCLUDES) }),
          close,
        };
      } catch (error) {
        hold?.release();
        throw error;
      }
    },
    hidden(path, workspace) {
      if (isWithin(workspace, path)) return undefined;
      if (privateRoots.some((root) => isWithin(root, path))) {
        return "it lies under a directory the sandbox replaces with its own (/tmp, /dev, /proc)";
      }
      if (
        hostServiceMasks(options.runtimeDir, options.serviceRoots).some((mask) =>
          isWithin(mask.path, path),
        )
      ) {
        return "it lies in a runtime directory the sandbox hides (/run/user, XDG_RUNTIME_DIR)";
      }
      if (credentialMasks().some((mask) => isWithin(mask.path, path))) {
        return "it lies in a credential store the sandbox hides";
      }
      if (stateDirMasks(options.stateDir, workspace).some((mask) => isWithin(mask.path, path))) {
        return "it lies in dsh's state directory, which the sandbox hides";
      }
      return undefined;
    },
    close: () => placeholders.flush(),
  };
}

async function openSeatbelt(options: BackendOptions): Promise<Backend> {
  const status = await probeSeatbelt(options.probeTimeoutMs, options.logger);
  if (!status.ok) return unavailable(status);
  const secrets = credentialPaths(options.credentials ?? { home: options.home });
  const walks = walksByWorkspace(await loadDirCalls(), options.walkLimits);
  return {
    status,
    wrap(input, argv) {
      refuseRedirectedGit(input.workspace);
      const tempDirs = [realpathOr("/tmp"), realpathOr("/var/tmp")];
      const stateDir = realpathOr(options.stateDir);
      const hideState = !isWithin(stateDir, input.workspace);
      const writable = input.mode === "workspace-write";
      const git = options.git ?? { home: options.home };
      // Seatbelt cannot tell a new `.git` from any other write: they are found and removed after.
      const protection = writable
        ? {
            guards: [],
            gitEntries: findGitEntries(input.workspace, walks(input.workspace)).map(
              (entry) => entry.path,
            ),
          }
        : undefined;
      // Rules are path patterns: missing paths are covered as well as existing ones.
      const gitControl = writable ? gitControlPaths(input.workspace, git).map(realpathOr) : [];
      const projectConfig = writable
        ? projectConfigMasks(input.workspace, protection?.gitEntries ?? [])
        : [];
      const roots = writable ? [input.workspace, ...tempDirs] : tempDirs;
      const plan = {
        ...input,
        tempDirs,
        stateDir,
        protectedDirs: (options.protectedDirs ?? []).map(realpathOr),
        gitControl,
        secrets: hideState ? [...secrets, { type: "dir" as const, path: stateDir }] : secrets,
        projectConfig,
        keepNames: namesToKeep(roots, [
          ...secrets.map((mask) => realpathOr(mask.path)),
          ...gitControl,
          ...projectConfig.map((mask) => mask.path),
        ]),
        network: false,
        proxyPort: input.network?.type === "port" ? input.network.port : undefined,
      };
      const close = () =>
        protection === undefined
          ? []
          : checkAfterCommand(input.workspace, protection, options.logger, walks(input.workspace))
              .notes;
      return { argv: seatbeltArgs(plan, argv), fds: [], close };
    },
    hidden(path) {
      return secrets.some((mask) => isWithin(mask.path, path))
        ? "it lies in a credential store the sandbox hides"
        : undefined;
    },
    close() {},
  };
}

function unavailable(status: SandboxStatus): Backend {
  return {
    status,
    wrap() {
      throw new SandboxUnavailableError(status);
    },
    hidden: () => undefined,
    close() {},
  };
}

/** How each workspace is walked: the same calls and limits, one listing cache per workspace. */
function walksByWorkspace(
  calls: DirCalls,
  limits: WalkLimits | undefined,
): (workspace: string) => WalkOptions {
  const caches = new Map<string, GitEntryCache>();
  return (workspace) => {
    let cache = caches.get(workspace);
    if (cache === undefined) {
      cache = new Map();
      caches.set(workspace, cache);
    }
    return { calls, limits, cache };
  };
}

/** The directory calls, or why there are none. */
async function callsOrFailure(): Promise<DirCalls | string> {
  try {
    return await loadDirCalls();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Refuses a workspace that holds, or is, something a command left that dsh could not undo. */
function refuseUnsafe(unsafe: ReadonlySet<string>, workspace: string): void {
  for (const path of unsafe) {
    if (path === workspace) {
      throw new InvalidInputError(
        `dsh could not check all of ${workspace} for git repositories after an earlier command, ` +
          "or could not remove one it found (the error then says which); it runs no more " +
          `sandboxed commands there: look for .git entries you did not make (find ${workspace} ` +
          "-name .git), remove them, then start dsh again",
        { workspace },
      );
    }
    if (isWithin(workspace, path) && lstatSync(path, { throwIfNoEntry: false }) !== undefined) {
      throw new InvalidInputError(
        `${path} was created by a sandboxed command and dsh could not remove it; git may run ` +
          "commands from it: remove it, then run the command again",
        { path },
      );
    }
  }
}
