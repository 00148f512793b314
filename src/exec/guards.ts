/**
 * What a sandbox must keep read-only or hidden, found by looking at the disk just before a
 * command runs: the guard and mask shapes, dsh's state directory and the usual credential
 * stores under HOME. The workspace's own guards are built in `workspace-guards.ts`.
 */
import { statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isWithin, realpathOfAncestor, realpathOrUndefined } from "../paths.ts";
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

/** The credential masks of one backend, remembered from command to command. */
export type CredentialMasker = () => Mask[];

/**
 * `credentialMasks` of `scope` at each call, plus every store location an earlier call masked
 * that still holds a file or directory of the same kind: a store stays hidden where it was even
 * when the name that led to it (a symlinked `$XDG_CONFIG_HOME` in the workspace) was pointed
 * elsewhere by a command. Locations are real paths; the pins of `storePins` keep them in place.
 */
export function createCredentialMasker(
  scope: CredentialScope,
  mounts: () => ReturnType<typeof readMountTable> = readMountTable,
): CredentialMasker {
  const seen = new Map<string, Mask["type"]>();
  return () => {
    const masks = credentialMasks(scope, mounts());
    const masked = new Set<string>();
    for (const mask of masks) {
      const real = realpathOrUndefined(mask.path);
      if (real === undefined) continue;
      seen.set(real, mask.type);
      masked.add(real);
    }
    for (const [path, type] of seen) {
      if (masked.has(path)) continue;
      const stat = existingStat(path);
      if (stat !== undefined && (stat.isDirectory() ? "dir" : "file") === type) {
        masks.push({ type, path });
      }
    }
    return masks;
  };
}

/**
 * The parent directories of the masks that lie inside `workspace` (real paths). A mask pins
 * only its own inode: renaming a parent (`mv zed zed.moved`) would carry the store to a name
 * the next command does not mask, so these are bound onto themselves, with every directory
 * up to the workspace (`protectWorkspace`'s `pinned`).
 */
export function storePins(masks: readonly Mask[], workspace: string): string[] {
  const pins = new Set<string>();
  for (const mask of masks) {
    const real = realpathOrUndefined(mask.path);
    if (real === undefined || real === workspace || !isWithin(workspace, real)) continue;
    pins.add(dirname(real));
  }
  return [...pins];
}

/** `stat` without an exception for a missing path: most stores do not exist, at every command. */
function existingStat(path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * The stores of the credential set, existing or not, each as it is spelled and as it really is
 * (the realpath of its deepest existing part plus the rest): for rule-based sandboxes, whose
 * rules are matched against real paths, so a store reached through a symlink (`~/.aws` linked
 * to a dotfiles checkout) is covered where it really lies.
 */
export function credentialSpellings(scope: CredentialScope): Mask[] {
  const spelled = new Map<string, Mask>();
  for (const store of credentialStores(scope)) {
    for (const path of [store.path, realpathOfAncestor(store.path)]) {
      if (!spelled.has(path)) spelled.set(path, { type: store.type, path });
    }
  }
  return [...spelled.values()];
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
