/**
 * The macOS backend: `/usr/bin/sandbox-exec -p PROFILE -D NAME=PATH ... -- argv`. Paths never
 * enter the profile text; they travel as `-D` parameters, so no path can inject a rule.
 * Seatbelt rules are path patterns, so protected paths are covered whether or not they exist.
 */
import { dirname, join } from "node:path";
import { isWithin } from "../paths.ts";
import type { Mask } from "./guards.ts";

export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

export interface SeatbeltPlan {
  readonly mode: "read-only" | "workspace-write";
  /** Realpath of the session root (`/private/...` rather than `/tmp` or `/var`). */
  readonly workspace: string;
  /** Realpath'd temp directories a command may write (e.g. `/private/tmp`, `$TMPDIR`). */
  readonly tempDirs: readonly string[];
  /** dsh's state directory, kept read-only (hidden through `secrets` unless it holds the workspace). */
  readonly stateDir: string;
  /** dsh's config directories, kept read-only. */
  readonly protectedDirs: readonly string[];
  /** What git reads to decide what to run (config files and includes, hooks, ...), kept read-only. */
  readonly gitControl: readonly string[];
  /** Credential stores hidden from reads. */
  readonly secrets: readonly Mask[];
  /** Protected project configuration (`.vscode/`, `.npmrc`, ...), kept unwritable. */
  readonly projectConfig?: readonly Mask[];
  /**
   * Directories inside writable places whose names must stay (ancestors of stores and of
   * protected paths): renaming one would carry what lies below to a name no rule covers.
   */
  readonly keepNames?: readonly string[];
  readonly network: boolean;
  /** The port of dsh's proxy on the host's loopback: the one address the command may reach. */
  readonly proxyPort?: number;
}

export interface SeatbeltProfile {
  readonly profile: string;
  /** `NAME=VALUE` pairs for `-D`. */
  readonly params: readonly string[];
}

const BASE = `(version 1)
(deny default)
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow file-read*)
(allow file-ioctl (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/ttys[0-9]+$"))
(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty")
  (literal "/dev/stdout") (literal "/dev/stderr") (regex #"^/dev/fd/[0-9]+$"))
(allow pseudo-tty)
(allow ipc-posix-sem ipc-posix-shm-read-data ipc-posix-shm-write-data)
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.SecurityServer"))`;

/** The profile text and its parameters for `plan`. Pure. */
export function seatbeltProfile(plan: SeatbeltPlan): SeatbeltProfile {
  const params: string[] = [];
  const param = (name: string, value: string) => {
    params.push(`${name}=${value}`);
    return `(param "${name}")`;
  };
  const lines = [BASE];
  const writable = plan.tempDirs.map((dir, i) => `(subpath ${param(`TEMP_${i}`, dir)})`);
  if (plan.mode === "workspace-write")
    writable.push(`(subpath ${param("WORKSPACE", plan.workspace)})`);
  lines.push(`(allow file-write* ${writable.join(" ")})`);
  if (plan.mode === "workspace-write") {
    // Later rules win: carve the protected paths back out of the writable workspace.
    const git = join(plan.workspace, ".git");
    const denied = [
      `(literal ${param("GIT", git)})`,
      `(subpath ${param("GIT_HOOKS", join(git, "hooks"))})`,
      `(literal ${param("GIT_CONFIG", join(git, "config"))})`,
      `(literal ${param("GIT_COMMONDIR", join(git, "commondir"))})`,
      `(subpath ${param("DSH_PROJECT", join(plan.workspace, ".dsh"))})`,
      `(subpath ${param("DSH_STATE", plan.stateDir)})`,
      ...plan.protectedDirs.map((dir, i) => `(subpath ${param(`PROTECTED_${i}`, dir)})`),
      ...plan.gitControl.map((path, i) => `(subpath ${param(`GIT_CONTROL_${i}`, path)})`),
      ...(plan.projectConfig ?? []).map((entry, i) => {
        const kind = entry.type === "dir" ? "subpath" : "literal";
        return `(${kind} ${param(`CONFIG_${i}`, entry.path)})`;
      }),
    ];
    lines.push(`(deny file-write* ${denied.join(" ")})`);
  }
  const keep = plan.keepNames ?? [];
  if (keep.length > 0) {
    // Renaming a directory is an unlink of its path: denied, it cannot be moved.
    const kept = keep.map((dir, i) => `(literal ${param(`KEEP_${i}`, dir)})`);
    lines.push(`(deny file-write-unlink ${kept.join(" ")})`);
  }
  if (plan.secrets.length > 0) {
    const hidden = plan.secrets.map((mask, i) => {
      const kind = mask.type === "dir" ? "subpath" : "literal";
      return `(${kind} ${param(`SECRET_${i}`, mask.path)})`;
    });
    lines.push(`(deny file-read* file-write* ${hidden.join(" ")})`);
  }
  if (plan.network) lines.push("(allow network* system-socket)");
  else if (plan.proxyPort !== undefined && Number.isInteger(plan.proxyPort)) {
    // A number, so it cannot inject a rule; Seatbelt names loopback as "localhost".
    lines.push(`(allow network-outbound (remote ip "localhost:${plan.proxyPort}"))`);
  }
  return { profile: `${lines.join("\n")}\n`, params };
}

/**
 * The directories strictly between each writable place (`roots`) and each of `paths` that
 * lies below one, without duplicates: their names must stay for path rules to keep holding.
 */
export function namesToKeep(roots: readonly string[], paths: readonly string[]): string[] {
  const keep = new Set<string>();
  for (const path of paths) {
    for (const root of roots) {
      if (path === root || !isWithin(root, path)) continue;
      for (let dir = dirname(path); dir !== root && isWithin(root, dir); dir = dirname(dir)) {
        keep.add(dir);
      }
    }
  }
  return [...keep];
}

/** The full argv: sandbox-exec by absolute path, the profile, its parameters, `--`, argv. */
export function seatbeltArgs(plan: SeatbeltPlan, argv: readonly string[]): string[] {
  const { profile, params } = seatbeltProfile(plan);
  return [SANDBOX_EXEC, "-p", profile, ...params.flatMap((p) => ["-D", p]), "--", ...argv];
}
