/**
 * Picks the sandbox backend for `DSH_SANDBOX` and the platform, probes it, and wraps argv
 * for it. `none` is no backend at all: sandboxed modes then fail closed.
 */
import { dirname, isAbsolute } from "node:path";
import { BRIDGE_SOCKET } from "../network/sandbox-link.ts";
import type { Logger } from "../log.ts";
import type { GitUserConfig } from "../permission/git-repository.ts";
import type { WalkLimits } from "./git-entries.ts";
import {
  callsOrFailure,
  checkWorkspaceAfter,
  refuseOverlappingRoots,
  refuseUnsafe,
  unavailableBackend,
  type Walks,
  walksByWorkspace,
} from "./backend-parts.ts";
import { bwrapArgs, locateBwrap } from "./bwrap.ts";
import type { CredentialScope } from "../permission/credentials.ts";
import { isWithin } from "../paths.ts";
import { type Mask, createCredentialMasker, stateDirMasks, storePins } from "./guards.ts";
import { loadDirWatcher } from "./dir-watch.ts";
import { loadFileLocks } from "./file-lock.ts";
import { excludesEnv, sandboxExcludes } from "./git-excludes.ts";
import { hostServiceMasks } from "./host-services.ts";
import { type PlaceholderHold, createPlaceholders } from "./placeholders.ts";
import { kernelInterfaces } from "./kernel-guards.ts";
import { probeBwrap } from "./probe.ts";
import { runningCommands } from "./running-checks.ts";
import { sandboxInfoFile } from "./sandbox-init.ts";
import { seccompFd } from "./seccomp.ts";
import { openSeatbelt } from "./seatbelt-backend.ts";
import type { SandboxAttach } from "../network/service.ts";
import type { NamespaceEntry } from "../network/sandbox-link.ts";
import type { SandboxPreference } from "../settings/table.ts";
import type { SandboxStatus } from "./types.ts";
import {
  type WorkspaceProtection,
  protectWorkspace,
  refuseRedirectedGit,
} from "./workspace-guards.ts";

export { unavailableBackend } from "./backend-parts.ts";

export interface WrapInput {
  readonly mode: "read-only" | "workspace-write";
  /** Realpaths. */
  readonly workspace: string;
  readonly cwd: string;
  /** How the command reaches dsh's proxy; no network at all when absent. */
  readonly network?: SandboxAttach;
  /** The session's added directories (realpaths): each gets what `workspace` gets. */
  readonly extraWorkspaces?: readonly string[];
}

/** What a view wraps a command for: its workspace and added directories are the view's. */
export type CommandInput = Omit<WrapInput, "workspace" | "extraWorkspaces">;

export interface Wrapped {
  readonly argv: string[];
  /** Parent fds the child gets as fd 3, 4, ...; `close` them once the command ended. */
  readonly fds: readonly number[];
  /** The pid of the sandbox's init, as bwrap told it (`sandbox-init.ts`); once it exited. */
  sandboxInit?(): number | undefined;
  /** Variables the command gets on top of its scrubbed environment, given that one. */
  env?(scrubbed: Readonly<Record<string, string>>): Record<string, string>;
  /**
   * Ends the command's sandbox once the command has exited: closes the fds and undoes what
   * the command may not leave in the workspace. `settled` false says a process of the command
   * may still run: the workspace is then left unchecked (later commands there are refused).
   * Returns notes for the model; never throws.
   */
  close(settled?: boolean): string[];
}

export interface Backend {
  readonly status: SandboxStatus;
  /**
   * What one command in `workspace` (and the session's added directories, `extras`) sees,
   * looked up once for it (the masks of credential stores, runtime directories and dsh's
   * state); only when `status.ok`.
   */
  view(workspace: string, extras?: readonly string[]): SandboxView;
  /** Undoes what outlives commands (lingering placeholders); once none runs. Never throws. */
  close(): void;
}

/** One command's view of the host, from which it is wrapped. */
export interface SandboxView {
  /** Why `path` is not visible inside the sandbox, or undefined when it is. */
  hidden(path: string): string | undefined;
  /** The argv to spawn and the guards it set up, in the view's workspace. */
  wrap(command: CommandInput, argv: readonly string[]): Wrapped;
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
  return unavailableBackend({ backend: "none", ok: false, ...noBackendReason(options) });
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
  const [calls, watcher] = await Promise.all([callsOrFailure(), loadDirWatcher()]);
  if (typeof calls === "string") {
    return unavailableBackend({
      backend: "bwrap",
      ok: false,
      reason: `dsh cannot check what commands leave in the project: ${calls}`,
      fix: "use the dsh build for this system's C library (glibc or musl), or choose danger-full-access",
    });
  }
  const bwrap = options.bwrapPath ?? locateBwrap(options.path);
  const probe = await probeFor(options, bwrap, calls);
  const { features, program } = probe;
  if (bwrap === undefined || features === undefined || !probe.status.ok) {
    return unavailableBackend(probe.status);
  }
  // What commands created and dsh could not undo: later commands there are refused.
  const unsafe = new Set<string>();
  const walks = walksByWorkspace(calls, options.walkLimits, watcher);
  const running = runningCommands();
  // The kernel's entries do not change while dsh runs; those bwrap covers itself are left out.
  const kernel = probe.kernel ?? kernelInterfaces();
  const credentialMasks = createCredentialMasker(options.credentials ?? { home: options.home });
  const placeholders = createPlaceholders({
    stateDir: options.stateDir,
    locks: await loadFileLocks(),
    logger: options.logger,
  });
  const view = (workspace: string, extras: readonly string[] = []): SandboxView => {
    const roots = [workspace, ...extras];
    const credentials = credentialMasks();
    const stateDir = uniqueMasks(roots.flatMap((root) => stateDirMasks(options.stateDir, root)));
    const services = hostServiceMasks(options.runtimeDir, options.serviceRoots);
    const masks = [...credentials, ...stateDir];
    const hidden = (path: string) => hiddenIn(path, { roots, services, credentials, stateDir });
    const wrap = (command: CommandInput, argv: readonly string[]): Wrapped => {
      const input: WrapInput = { ...command, workspace };
      const { logger } = options;
      const early = roots.flatMap((root) => running.check(root, logger, walks, unsafe));
      refuseRoots(workspace, extras, options.protectedDirs ?? [], unsafe);
      const writable = input.mode === "workspace-write";
      const git = options.git ?? { home: options.home };
      // Held from before any placeholder is made until the command has ended, one per root.
      const holds = writable ? roots.map((root) => placeholders.hold(root)) : [];
      const hold = holds[0];
      let stopped = () => {};
      const releaseAll = () => {
        stopped();
        for (const held of holds) held.release();
      };
      try {
        const protections = writable
          ? protectRoots(roots, { options, masks, holds, git, walks })
          : undefined;
        if (protections !== undefined) stopped = running.add(roots, protections);
        for (const held of holds) held.seal();
        const guards = protections?.[0]?.guards ?? [];
        // git in the sandbox must not stage the placeholders (`git-excludes.ts`).
        const excludes = sandboxExcludes(
          roots.map((root, i) => ({ root, placeholders: holds[i]?.placeholders() ?? [] })),
          git,
        );
        const excludeFiles =
          hold === undefined || excludes === undefined
            ? []
            : excludes.files.map(({ text, dest }) => ({ source: hold.keep(text), dest }));
        const plan = {
          ...input,
          guards,
          extraWorkspaces: extras.map((path, i) => ({
            path,
            guards: protections?.[i + 1]?.guards ?? [],
          })),
          masks,
          services,
          kernel,
          tmpFiles: [...excludeFiles, ...bridgeFiles(input.network)],
          ...networkPlan(input.network),
        };
        // The arguments first: a path bwrap cannot take throws before any descriptor is open.
        const infoFd = program === undefined ? 3 : 4;
        const args = bwrapArgs(plan, { ...features, seccompFd: program && 3, infoFd }, argv);
        const opened = sandboxFds(program);
        // The namespace's descriptors come after the filter's and the info file's in the child.
        const entry = enterNamespace(input.network, infoFd + 1, opened);
        const wrapped = [...(entry?.argv ?? []), bwrap, ...args];
        let closed = false;
        const close = (settled = true) => {
          if (closed) return [];
          closed = true;
          opened.close();
          entry?.close();
          if (protections === undefined) return early;
          try {
            return early.concat(
              roots.flatMap((root, i) => {
                const kept = protections[i];
                if (kept === undefined) return [];
                const walk = walks.of(root);
                return checkWorkspaceAfter(root, kept, options.logger, walk, unsafe, settled);
              }),
            );
          } finally {
            releaseAll();
          }
        };
        return {
          argv: wrapped,
          fds: [...opened.fds, ...(entry?.fds ?? [])],
          sandboxInit: opened.initPid,
          ...(excludes === undefined || excludeFiles.length === 0
            ? {}
            : { env: (scrubbed) => excludesEnv(scrubbed, excludes.config) }),
          close,
        };
      } catch (error) {
        releaseAll();
        throw error;
      }
    };
    return { hidden, wrap };
  };
  return {
    status: probe.status,
    view,
    close() {
      placeholders.flush();
      walks.close();
    },
  };
}

/** The probe of `bwrap` with what the backend was opened with. */
function probeFor(
  options: BackendOptions,
  bwrap: string | undefined,
  calls: Parameters<typeof probeBwrap>[0]["calls"],
) {
  return probeBwrap({
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
}

/** The directories bwrap replaces with its own. */
const PRIVATE_ROOTS = ["/tmp", "/dev", "/proc"];

/** Why `path` is not visible inside a sandbox with these roots and masks; undefined when it is. */
function hiddenIn(
  path: string,
  view: {
    readonly roots: readonly string[];
    readonly services: readonly { readonly path: string }[];
    readonly credentials: readonly Mask[];
    readonly stateDir: readonly Mask[];
  },
): string | undefined {
  if (view.roots.some((root) => isWithin(root, path))) return undefined;
  if (PRIVATE_ROOTS.some((root) => isWithin(root, path))) {
    return "it lies under a directory the sandbox replaces with its own (/tmp, /dev, /proc)";
  }
  if (view.services.some((mask) => isWithin(mask.path, path))) {
    return "it lies in a runtime directory the sandbox hides (/run/user, XDG_RUNTIME_DIR)";
  }
  if (view.credentials.some((mask) => isWithin(mask.path, path))) {
    return "it lies in a credential store the sandbox hides";
  }
  if (view.stateDir.some((mask) => isWithin(mask.path, path))) {
    return "it lies in dsh's state directory, which the sandbox hides";
  }
  return undefined;
}

/**
 * The descriptors bwrap gets as fd 3, 4: the seccomp program where there is one, then the file
 * it tells its sandbox init's pid in (`sandbox-init.ts`).
 */
function sandboxFds(program: Uint8Array | undefined) {
  const filter = program === undefined ? undefined : seccompFd(program);
  const info = sandboxInfoFile();
  return {
    fds: filter === undefined ? [info.fd] : [filter.fd, info.fd],
    initPid: info.initPid,
    close() {
      filter?.close();
      info.close();
    },
  };
}

/** What no command may run in: overlapping roots, unchecked ones, redirected git directories. */
function refuseRoots(
  workspace: string,
  extras: readonly string[],
  protectedDirs: readonly string[],
  unsafe: ReadonlySet<string>,
): void {
  refuseOverlappingRoots(workspace, extras, protectedDirs);
  for (const root of [workspace, ...extras]) {
    refuseUnsafe(unsafe, root);
    refuseRedirectedGit(root);
  }
}

/** The protections of each root (the workspace, then the added directories), in order. */
function protectRoots(
  roots: readonly string[],
  parts: {
    readonly options: BackendOptions;
    readonly masks: readonly Mask[];
    readonly holds: readonly PlaceholderHold[];
    readonly git: GitUserConfig;
    readonly walks: Walks;
  },
): WorkspaceProtection[] {
  const { options } = parts;
  return roots.map((root, i) =>
    protectWorkspace(root, {
      stateDir: options.stateDir,
      protectedDirs: options.protectedDirs,
      pinned: storePins(parts.masks, root),
      placeholder: parts.holds[i]?.make,
      git: parts.git,
      walk: parts.walks.of(root),
    }),
  );
}

/** Masks without repeats (each root may name the same state directory). */
function uniqueMasks<T extends { readonly path: string }>(masks: readonly T[]): T[] {
  const seen = new Set<string>();
  const unique: T[] = [];
  for (const mask of masks) {
    if (seen.has(mask.path)) continue;
    seen.add(mask.path);
    unique.push(mask);
  }
  return unique;
}

/**
 * Whether the sandbox shares the network it starts in (a namespace dsh made, or a session's
 * that `enterNamespace` enters), and the proxy socket bound in for the bridge.
 */
function networkPlan(network: SandboxAttach | undefined): {
  network: boolean;
  proxySocket: string | undefined;
} {
  if (network?.type === "bridge") {
    return { network: network.enter !== undefined, proxySocket: network.socket };
  }
  return { network: network?.type === "namespace", proxySocket: undefined };
}

/**
 * What starts the sandbox inside a session's namespace (`network-holder.ts`), its descriptors
 * the child's from `firstFd` on; none else. Closes `filter` when it throws.
 */
function enterNamespace(
  network: SandboxAttach | undefined,
  firstFd: number,
  filter: { close(): void } | undefined,
): NamespaceEntry | undefined {
  if (network?.type !== "bridge" || network.enter === undefined) return undefined;
  try {
    return network.enter(firstFd);
  } catch (error) {
    filter?.close();
    throw error;
  }
}

/**
 * What the bridge runs from, where it lies under `/tmp` (a clone or an unpacked release there):
 * the sandbox's `/tmp` is its own, so dsh's executable (or, from source, its entry's folder) is
 * shown read-only at the same path inside it.
 */
function bridgeFiles(network: SandboxAttach | undefined): { source: string; dest: string }[] {
  if (network?.type !== "bridge") return [];
  return network.bridge
    .filter((arg) => arg !== BRIDGE_SOCKET && isAbsolute(arg) && isWithin("/tmp", arg))
    .map((arg) => (arg.endsWith(".ts") ? dirname(arg) : arg))
    .map((path) => ({ source: path, dest: path }));
}
