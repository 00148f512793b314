/**
 * What a sandbox must keep read-only or hidden, found by looking at the disk just before a
 * command runs: the guard and mask shapes, dsh's state directory and the usual credential
 * stores under HOME. The workspace's own guards are built in `workspace-guards.ts`.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { isWithin, realpathOrUndefined } from "../paths.ts";
import { credentialStores } from "../permission/credentials.ts";
import type { CredentialScope } from "../permission/credentials.ts";
import { mountAliases, readMountTable } from "./mount-aliases.ts";

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

/**
 * dsh's state directory holds every project's session transcripts: hidden behind an empty
 * read-only directory, unless the workspace lies inside it (hiding it would hide the work).
 */
export function stateDirMasks(stateDir: string, workspace: string): Mask[] {
  const real = realpathOrUndefined(resolve(stateDir));
  if (real === undefined || real === "/" || isWithin(real, workspace)) return [];
  return statOrUndefined(real)?.isDirectory() === true ? [{ type: "dir", path: real }] : [];
}

/**
 * The stores of the credential set that exist (a mount needs an existing mount point), each
 * hidden behind an empty directory or `/dev/null`: at its path, and wherever a bind mount or
 * a second mount of its file system shows the same inode (a path check alone misses a home
 * reached through another mount point).
 */
export function credentialMasks(scope: CredentialScope, mounts = readMountTable()): Mask[] {
  const masks: Mask[] = [];
  const add = (mask: Mask) => {
    if (!masks.some((known) => known.path === mask.path)) masks.push(mask);
  };
  for (const store of credentialStores(scope)) {
    const stat = existingStat(store.path);
    if (stat === undefined) continue;
    const type = stat.isDirectory() ? "dir" : "file";
    add({ type, path: store.path });
    const real = realpathOrUndefined(store.path);
    if (real === undefined) continue;
    for (const alias of mountAliases(real, mounts)) add({ type, path: alias });
  }
  return masks;
}

/** `stat` without an exception for a missing path: most stores do not exist, at every command. */
function existingStat(path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The stores of the credential set, existing or not (for rule-based sandboxes). */
export function credentialPaths(scope: CredentialScope): Mask[] {
  return credentialStores(scope).map((store) => ({ type: store.type, path: store.path }));
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
