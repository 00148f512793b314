/**
 * The bubblewrap argument plan (sandbox.md §3.2). Order is significant: the private `/tmp`
 * and the host-service masks come before the workspace bind (a later tmpfs would hide a
 * workspace under `/tmp` or `/run/user`), and the read-only re-binds of protected paths and
 * the credential masks come after it. The kernel's global interfaces under the fresh `/proc`
 * are bound read-only right after it (`kernel-guards.ts`).
 */
import { InvalidInputError } from "../errors.ts";
import { isWithin } from "../paths.ts";
import { BRIDGE_SOCKET } from "../network/sandbox-link.ts";
import type { Guard, Mask } from "./guards.ts";
import { findExecutable } from "./locate.ts";

export interface SandboxPlan {
  readonly mode: "read-only" | "workspace-write";
  /** Realpath of the session root. */
  readonly workspace: string;
  /** Realpath of the working directory; inside the sandbox's view. */
  readonly cwd: string;
  /** Protections inside the workspace (used under `workspace-write` only). */
  readonly guards: readonly Guard[];
  /** The session's added directories, bound like the workspace, each with its protections. */
  readonly extraWorkspaces?: readonly {
    readonly path: string;
    readonly guards: readonly Guard[];
  }[];
  readonly masks: readonly Mask[];
  /** Runtime directories and service sockets: private tmpfs dirs and `/dev/null`, before the workspace. */
  readonly services: readonly Mask[];
  /** Global `/proc` entries (`/proc/sys`, `/proc/sysrq-trigger`, ...) bound read-only. */
  readonly kernel: readonly string[];
  /** Host files shown read-only inside the private `/tmp` (dsh's own, for the command). */
  readonly tmpFiles?: readonly { readonly source: string; readonly dest: string }[];
  /**
   * Whether the command shares the network namespace it is spawned in (one dsh made, whose
   * only listener is the proxy, or a session's that a holder keeps and the command entered
   * before bwrap) instead of getting an empty one from bwrap.
   */
  readonly network: boolean;
  /** dsh's proxy socket, bound at `BRIDGE_SOCKET` in the private `/tmp` for the bridge. */
  readonly proxySocket?: string;
}

export interface BwrapFeatures {
  /** bwrap >= 0.8: `--disable-userns` stops the command from creating user namespaces. */
  readonly disableUserns: boolean;
  /** The fd (in the child) carrying a seccomp program, when there is one. */
  readonly seccompFd?: number;
  /** The fd (in the child) bwrap tells the sandbox init's pid on (`sandbox-init.ts`). */
  readonly infoFd?: number;
}

/** Where bwrap is looked for before PATH. */
const BWRAP_LOCATIONS = ["/usr/bin/bwrap", "/usr/local/bin/bwrap"];

/** The bwrap executable, or undefined when there is none. */
export function locateBwrap(path: string | undefined): string | undefined {
  return findExecutable("bwrap", BWRAP_LOCATIONS, path);
}

/** bwrap's arguments for `argv` under `plan`; throws InvalidInputError for unusable paths. */
export function bwrapArgs(
  plan: SandboxPlan,
  features: BwrapFeatures,
  argv: readonly string[],
): string[] {
  const args = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts"];
  args.push("--unshare-cgroup-try", plan.network ? "--share-net" : "--unshare-net");
  if (features.disableUserns) args.push("--disable-userns");
  // As root, bwrap keeps every capability unless told to drop them. No `--new-session`: the
  // runner starts each command in a session of its own without a terminal already, and
  // bwrap's setsid comes before its --die-with-parent, which would let the sandbox leave the
  // command's process group (and escape its kill) while it is still being set up.
  args.push("--die-with-parent", "--cap-drop", "ALL");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  for (const entry of plan.kernel) args.push("--ro-bind-try", checked(entry), entry);
  args.push("--tmpfs", "/tmp");
  for (const file of plan.tmpFiles ?? []) {
    args.push("--ro-bind", checked(file.source), checked(file.dest));
  }
  if (plan.proxySocket !== undefined) args.push("--bind", checked(plan.proxySocket), BRIDGE_SOCKET);
  // Writable tmpfs, so bwrap can still create the mount point of a workspace inside one.
  for (const service of plan.services) args.push(...serviceArgs(service));
  const writable = plan.mode === "workspace-write";
  args.push(writable ? "--bind" : "--ro-bind", checked(plan.workspace), plan.workspace);
  if (writable) for (const guard of plan.guards) args.push(...guardArgs(guard));
  for (const extra of plan.extraWorkspaces ?? []) {
    args.push(writable ? "--bind" : "--ro-bind", checked(extra.path), extra.path);
    if (writable) for (const guard of extra.guards) args.push(...guardArgs(guard));
  }
  // A root that holds a runtime directory or service socket (a workspace of /run, say) would
  // show the real one again: each such mask goes on again above the roots. (A root that is
  // the runtime directory itself stays the workspace it was opened as.)
  const roots = [plan.workspace, ...(plan.extraWorkspaces ?? []).map((extra) => extra.path)];
  for (const service of plan.services) {
    const inside = (root: string) => root !== service.path && isWithin(root, service.path);
    if (roots.some(inside)) args.push(...serviceArgs(service));
  }
  for (const mask of plan.masks) {
    const path = checked(mask.path);
    if (mask.type === "dir") args.push(...emptyReadOnlyDir(path));
    else args.push("--ro-bind", "/dev/null", path);
  }
  if (features.seccompFd !== undefined) args.push("--seccomp", String(features.seccompFd));
  if (features.infoFd !== undefined) args.push("--info-fd", String(features.infoFd));
  args.push("--chdir", checked(plan.cwd), "--", ...argv);
  return args;
}

/** A runtime directory as an empty tmpfs, a service socket as `/dev/null`. */
function serviceArgs(service: Mask): string[] {
  const path = checked(service.path);
  return service.type === "dir" ? ["--tmpfs", path] : ["--ro-bind", "/dev/null", path];
}

function guardArgs(guard: Guard): string[] {
  const path = checked(guard.path);
  switch (guard.type) {
    case "pin":
      return ["--bind", path, path];
    case "readonly":
      return ["--ro-bind", path, path];
    case "forbid":
      return [];
    default: {
      const exhaustive: never = guard.type;
      return exhaustive;
    }
  }
}

function emptyReadOnlyDir(path: string): string[] {
  return ["--tmpfs", path, "--remount-ro", path];
}

/** Paths travel as separate arguments, but NUL or newline in one is never legitimate. */
function checked(path: string): string {
  if (/[\0\n]/.test(path)) {
    throw new InvalidInputError(
      `path contains a NUL or newline character: ${JSON.stringify(path)}`,
    );
  }
  return path;
}
