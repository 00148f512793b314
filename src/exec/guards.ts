/**
 * What a sandbox must keep read-only or hidden, found by looking at the disk just before a
 * command runs: the guard and mask shapes, dsh's state directory and the usual credential
 * stores under HOME. The workspace's own guards are built in `workspace-guards.ts`.
 */
import { realpathSync, statSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { CREDENTIAL_DIRS, CREDENTIAL_FILES } from "../permission/credentials.ts";

/**
 * One protection inside the writable workspace.
 * - `pin`: a directory bound onto itself so it cannot be renamed or removed;
 * - `readonly`: an existing file or directory bound read-only onto itself;
 * - `forbid`: a missing path; blocking it would take a mount point on the host, so the runner
 *   deletes it if a command creates it.
 */
export interface Guard {
  readonly type: "pin" | "readonly" | "forbid";
  readonly path: string;
}

/** A credential store hidden from sandboxed commands: an empty directory or `/dev/null`. */
export interface Mask {
  readonly type: "dir" | "file";
  readonly path: string;
}

/** True when `path` is `root` or lies below it, comparing whole path segments. */
export function isWithin(root: string, path: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

/**
 * dsh's state directory holds every project's session transcripts: hidden behind an empty
 * read-only directory, unless the workspace lies inside it (hiding it would hide the work).
 */
export function stateDirMasks(stateDir: string, workspace: string): Mask[] {
  const real = realpathOrUndefined(resolve(stateDir));
  if (real === undefined || real === "/" || isWithin(real, workspace)) return [];
  return statOrUndefined(real)?.isDirectory() === true ? [{ type: "dir", path: real }] : [];
}

/** Credential stores under `home` that exist (a mount needs an existing mount point). */
export function credentialMasks(home: string): Mask[] {
  const masks: Mask[] = [];
  for (const name of [...CREDENTIAL_DIRS, ...CREDENTIAL_FILES]) {
    const path = join(home, name);
    const stat = statOrUndefined(path);
    if (stat?.isDirectory()) masks.push({ type: "dir", path });
    else if (stat !== undefined) masks.push({ type: "file", path });
  }
  return masks;
}

/** Credential store paths under `home`, existing or not (for rule-based sandboxes). */
export function credentialPaths(home: string): Mask[] {
  return [
    ...CREDENTIAL_DIRS.map((name) => ({ type: "dir" as const, path: join(home, name) })),
    ...CREDENTIAL_FILES.map((name) => ({ type: "file" as const, path: join(home, name) })),
  ];
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The realpath of `path`, or undefined when it does not exist. */
export function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
