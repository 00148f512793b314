/**
 * The identities (device, inode, birth time) of every secret place dsh has seen, kept for the
 * life of the process. A store moved to another name (`mv zed zed.moved`, a renamed parent, a
 * hard link) keeps its inode, so a lookup by identity still finds it where its path no longer
 * leads. The birth time tells a store that was moved from an unrelated file that got a freed
 * inode number; where the file system keeps none (0), device and inode decide alone.
 */
import type { SecretPlace } from "./credential-paths.ts";

/** What `stat` says of a file, with 64-bit inodes kept exact. */
export interface FileIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly nlink: bigint;
  /** 0 where the file system records no birth time. */
  readonly birthtimeNs?: bigint;
  isFile(): boolean;
}

interface Known {
  readonly place: SecretPlace;
  readonly birthtimeNs: bigint;
}

/**
 * Places by device, then inode: looked up for every file a search opens, so without building
 * a key for each.
 */
export type KnownIdentities = Map<bigint, Map<bigint, Known>>;

/** The place `identity` was seen as, or undefined. */
export function knownPlace(
  known: KnownIdentities,
  identity: FileIdentity,
): SecretPlace | undefined {
  const found = known.get(identity.dev)?.get(identity.ino);
  if (found === undefined) return undefined;
  const birth = identity.birthtimeNs ?? 0n;
  const sameFile = found.birthtimeNs === 0n || birth === 0n || found.birthtimeNs === birth;
  return sameFile ? found.place : undefined;
}

/** Records that `identity` is `place` (a later sighting of the same inode replaces it). */
export function rememberPlace(
  known: KnownIdentities,
  identity: FileIdentity,
  place: SecretPlace,
): void {
  let inodes = known.get(identity.dev);
  if (inodes === undefined) {
    inodes = new Map();
    known.set(identity.dev, inodes);
  }
  inodes.set(identity.ino, { place, birthtimeNs: identity.birthtimeNs ?? 0n });
}
