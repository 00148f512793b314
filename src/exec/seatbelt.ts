/**
 * The macOS backend: `/usr/bin/sandbox-exec -p PROFILE -D NAME=PATH ... -- argv`. Paths never
 * enter the profile text; they travel as `-D` parameters, so no path can inject a rule.
 * Seatbelt rules are path patterns matched against real paths, so protected paths are covered
 * whether or not they exist, and every path given here must be a realpath.
 *
 * What the workspace keeps is what `protectWorkspace()` finds for the Linux backend, rule by
 * rule: a `readonly` guard cannot be written, a `forbid`den path cannot be created, a `pin`
 * cannot be renamed or removed. No `.git` can be created anywhere in the workspace (nor, on a
 * volume that folds case, `.GIT` or `.Git`), and no file flag can be set (`chflags uchg` would
 * keep dsh from removing what a command left). No hard link can be made at all: rules match the
 * path a file is opened by, so a link in the workspace to `~/.zshrc` or to `.git/config` would
 * let the command write either through its own name (bwrap's mounts refuse such links, EXDEV).
 */
import { dirname } from "node:path";
import { isWithin } from "../paths.ts";
import type { Guard, Mask } from "./guards.ts";
import { seatbeltBase } from "./seatbelt-base.ts";

export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

export interface SeatbeltPlan {
  readonly mode: "read-only" | "workspace-write";
  /** Realpath of the session root (`/private/...` rather than `/tmp` or `/var`). */
  readonly workspace: string;
  /** The session's added directories (realpaths), writable like the workspace. */
  readonly extraWorkspaces?: readonly string[];
  /** Realpath of the command's own temp directory (its `TMPDIR`): the one place it may write outside the workspace. */
  readonly tempDir: string;
  /** What `protectWorkspace()` found to keep (realpaths inside the workspace); none when read-only. */
  readonly guards: readonly Guard[];
  /** Whether the workspace's volume folds case: then every case variant of `.git` is a `.git`. */
  readonly caseInsensitive: boolean;
  /** Credential stores hidden from reads and writes, each spelling of each (lexical and real). */
  readonly secrets: readonly Mask[];
  /**
   * Directories inside writable places whose names must stay (the ancestors of credential
   * stores there): renaming one would carry what lies below to a name no rule covers.
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

/**
 * A path ending in a `.git` component. The profile text holds no path, only this fixed pattern,
 * applied within the workspace's `subpath`.
 */
export function gitNamePattern(caseInsensitive: boolean): string {
  return caseInsensitive ? '#"/\\.[Gg][Ii][Tt]$"' : '#"/\\.git$"';
}

/** The profile text and its parameters for `plan`. Pure. */
export function seatbeltProfile(plan: SeatbeltPlan): SeatbeltProfile {
  const params: string[] = [];
  const param = (name: string, value: string) => {
    params.push(`${name}=${value}`);
    return `(param "${name}")`;
  };
  const hasProxy = plan.proxyPort !== undefined && Number.isInteger(plan.proxyPort);
  const lines = [seatbeltBase(hasProxy && !plan.network)];
  const temp = `(subpath ${param("TEMP", plan.tempDir)})`;
  const writable = plan.mode === "workspace-write";
  const workspace = writable ? `(subpath ${param("WORKSPACE", plan.workspace)})` : undefined;
  // Each added directory is one more writable place, with the workspace's rules.
  const places =
    workspace === undefined
      ? []
      : [
          workspace,
          ...(plan.extraWorkspaces ?? []).map((dir, i) => `(subpath ${param(`EXTRA_${i}`, dir)})`),
        ];
  lines.push(`(allow file-write* ${[temp, ...places].join(" ")})`);
  if (workspace !== undefined) {
    // Later rules win: carve the protected paths back out of the writable workspace.
    const kept = plan.guards.filter((guard) => guard.type !== "pin");
    if (kept.length > 0) {
      const denied = kept.map((guard, i) => `(subpath ${param(`GUARD_${i}`, guard.path)})`);
      lines.push(`(deny file-write* ${denied.join(" ")})`);
    }
    for (const place of places) {
      lines.push(
        `(deny file-write-create (require-all ${place} (regex ${gitNamePattern(plan.caseInsensitive)})))`,
      );
    }
  }
  lines.push(`(deny file-write-flags ${[temp, ...places].join(" ")})`);
  lines.push("(deny file-link)");
  // Renaming a directory is an unlink of its path: denied, it cannot be moved.
  const pins = [
    ...plan.guards.filter((guard) => guard.type === "pin").map((guard) => guard.path),
    ...(plan.keepNames ?? []),
  ];
  if (workspace !== undefined && pins.length > 0) {
    const kept = [...new Set(pins)].map((dir, i) => `(literal ${param(`KEEP_${i}`, dir)})`);
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
  else if (hasProxy) {
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
