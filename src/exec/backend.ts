/**
 * Picks the sandbox backend for `DSH_SANDBOX` and the platform, probes it, and wraps argv
 * for it. `none` is no backend at all: sandboxed modes then fail closed.
 */
import { realpathSync } from "node:fs";
import { bwrapArgs, locateBwrap } from "./bwrap.ts";
import { SandboxUnavailableError } from "./errors.ts";
import {
  credentialMasks,
  credentialPaths,
  isWithin,
  refuseRedirectedGit,
  stateDirMasks,
  workspaceGuards,
} from "./guards.ts";
import type { Guard } from "./guards.ts";
import type { CredentialScope } from "../permission/credentials.ts";
import { hostServiceMasks } from "./host-services.ts";
import { probeBwrap, probeSeatbelt } from "./probe.ts";
import { seccompFd } from "./seccomp.ts";
import { seatbeltArgs } from "./seatbelt.ts";
import type { SandboxStatus } from "./types.ts";

/** The values of `DSH_SANDBOX`. */
export type SandboxPreference = "auto" | "bwrap" | "seatbelt" | "none";

export interface WrapInput {
  readonly mode: "read-only" | "workspace-write";
  /** Realpaths. */
  readonly workspace: string;
  readonly cwd: string;
}

export interface Wrapped {
  readonly argv: string[];
  readonly guards: readonly Guard[];
  /** Parent fds the child gets as fd 3, 4, ...; `close` them once the command ended. */
  readonly fds: readonly number[];
  close(): void;
}

export interface Backend {
  readonly status: SandboxStatus;
  /** The argv to spawn and the guards it set up; only when `status.ok`. */
  wrap(input: WrapInput, argv: readonly string[]): Wrapped;
  /** Why `path` is not visible inside the sandbox, or undefined when it is. */
  hidden(path: string, workspace: string): string | undefined;
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
  readonly probeTimeoutMs: number;
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
  const bwrap = options.bwrapPath ?? locateBwrap(options.path);
  const probe = await probeBwrap({
    bwrap,
    configured: options.bwrapPath !== undefined,
    home: options.home,
    stateDir: options.stateDir,
    runtimeDir: options.runtimeDir,
    path: options.path,
    timeoutMs: options.probeTimeoutMs,
  });
  const { features, program } = probe;
  if (bwrap === undefined || features === undefined || !probe.status.ok) {
    return unavailable(probe.status);
  }
  const privateRoots = ["/tmp", "/dev", "/proc"];
  return {
    status: probe.status,
    wrap(input, argv) {
      refuseRedirectedGit(input.workspace);
      const guards =
        input.mode === "workspace-write"
          ? workspaceGuards(input.workspace, options.stateDir, options.protectedDirs)
          : [];
      const masks = [
        ...credentialMasks(options.credentials ?? { home: options.home }),
        ...stateDirMasks(options.stateDir, input.workspace),
      ];
      const services = hostServiceMasks(options.runtimeDir);
      const plan = { ...input, guards, masks, services, network: false };
      const filter = program === undefined ? undefined : seccompFd(program);
      const wrapped = [bwrap, ...bwrapArgs(plan, { ...features, seccompFd: filter && 3 }, argv)];
      const close = () => filter?.close();
      return { argv: wrapped, guards, fds: filter === undefined ? [] : [filter.fd], close };
    },
    hidden(path, workspace) {
      if (isWithin(workspace, path)) return undefined;
      if (privateRoots.some((root) => isWithin(root, path))) {
        return "it lies under a directory the sandbox replaces with its own (/tmp, /dev, /proc)";
      }
      if (hostServiceMasks(options.runtimeDir).some((mask) => isWithin(mask.path, path))) {
        return "it lies in a runtime directory the sandbox hides (/run/user, XDG_RUNTIME_DIR)";
      }
      if (
        credentialMasks(options.credentials ?? { home: options.home }).some((mask) =>
          isWithin(mask.path, path),
        )
      ) {
        return "it lies in a credential store the sandbox hides";
      }
      if (stateDirMasks(options.stateDir, workspace).some((mask) => isWithin(mask.path, path))) {
        return "it lies in dsh's state directory, which the sandbox hides";
      }
      return undefined;
    },
  };
}

async function openSeatbelt(options: BackendOptions): Promise<Backend> {
  const status = await probeSeatbelt(options.probeTimeoutMs);
  if (!status.ok) return unavailable(status);
  const secrets = credentialPaths(options.credentials ?? { home: options.home });
  return {
    status,
    wrap(input, argv) {
      const tempDirs = [realOr("/tmp"), realOr("/var/tmp")];
      const stateDir = realOr(options.stateDir);
      const hideState = !isWithin(stateDir, input.workspace);
      const plan = {
        ...input,
        tempDirs,
        stateDir,
        protectedDirs: (options.protectedDirs ?? []).map(realOr),
        secrets: hideState ? [...secrets, { type: "dir" as const, path: stateDir }] : secrets,
        network: false,
      };
      return { argv: seatbeltArgs(plan, argv), guards: [], fds: [], close: () => {} };
    },
    hidden(path) {
      return secrets.some((mask) => isWithin(mask.path, path))
        ? "it lies in a credential store the sandbox hides"
        : undefined;
    },
  };
}

function unavailable(status: SandboxStatus): Backend {
  return {
    status,
    wrap() {
      throw new SandboxUnavailableError(status);
    },
    hidden: () => undefined,
  };
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
