/**
 * Secret places matched by what a file is, not by what it is called: device and inode. A
 * path check misses the home directory reached through a second mount point or a bind
 * (`/mnt/alias/.aws`), a hard link to a store's file (`backup.txt` beside the project), and a
 * store whose parent was renamed (`zed.moved/settings.json`); comparing identities catches
 * them. A snapshot is taken per tool call: stores created later are seen by the next call, and
 * every identity seen stays known (`known-identities.ts`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { secretMatch, statIdentity } from "./credential-paths.ts";
import type { SecretMatch, SecretPlace, SecretPlaces } from "./credential-paths.ts";
import { knownPlace, rememberPlace } from "./known-identities.ts";
import type { FileIdentity, KnownIdentities } from "./known-identities.ts";

export type { FileIdentity };

/** Files visited inside directory stores to know their hard-linkable inodes. */
const MAX_LINKED_ENTRIES = 20_000;

/** The secret places as they were on disk when the snapshot was taken. */
export interface SecretSnapshot {
  readonly places: SecretPlaces;
  /**
   * The secret place `realPath` is or lies in, by path or by the identity of the file and its
   * ancestors; undefined when none. `identity` is what was opened (fstat), when known; else
   * the path is stat'ed. A regular file with more than one link is compared with every file
   * of the directory stores on its device. Never throws.
   */
  match(realPath: string, identity?: FileIdentity): SecretMatch | undefined;
}

/**
 * Stats the secret places of `places` now. `maxLinkedEntries` bounds the entries visited in
 * directory stores to compare a hard-linked file with; past it such a file is refused.
 */
export function snapshotSecrets(
  places: SecretPlaces,
  maxLinkedEntries = MAX_LINKED_ENTRIES,
): SecretSnapshot {
  // Every place seen, now or by an earlier look; what is there now is added.
  const byIdentity = places.known;
  // Directory stores by device: a hard link never crosses file systems. The state directory
  // is left out (its transcripts are many, and no command can see them to link them); its
  // stored key is a file store of its own.
  const dirsByDevice = new Map<bigint, SecretPlace[]>();
  const seen: KnownIdentities = new Map();
  for (const place of places.places) {
    const stats = statIdentity(place.path);
    if (stats === undefined) continue;
    // A store is listed as given and as it really is: the same directory is compared once.
    if (knownPlace(seen, stats) !== undefined) continue;
    rememberPlace(seen, stats, place);
    rememberPlace(byIdentity, stats, place);
    if (place.type !== "dir" || place.kind !== "credentials") continue;
    dirsByDevice.set(stats.dev, [...(dirsByDevice.get(stats.dev) ?? []), place]);
  }
  const ancestors = new Map<string, SecretPlace | null>();
  const linked = new Map<bigint, KnownIdentities | "too many">();

  const placeOfDirectory = (dir: string): SecretPlace | undefined => {
    const known = ancestors.get(dir);
    if (known !== undefined) return known ?? undefined;
    const stats = statIdentity(dir);
    const own = stats === undefined ? undefined : knownPlace(byIdentity, stats);
    const parent = path.dirname(dir);
    const found = own?.type === "dir" ? own : parent === dir ? undefined : placeOfDirectory(parent);
    ancestors.set(dir, found ?? null);
    return found;
  };

  const asMatch = (place: SecretPlace): SecretMatch => ({
    place: place.path,
    type: place.type,
    kind: place.kind,
    reason: place.reason,
  });

  return {
    places,
    match(realPath, identity) {
      const byPath = secretMatch(realPath, places);
      if (byPath !== undefined) return byPath;
      const stats = identity === undefined ? statIdentity(realPath) : undefined;
      const own = identity ?? stats;
      if (own !== undefined) {
        const place = knownPlace(byIdentity, own);
        if (place !== undefined) return asMatch(place);
      }
      const parent = placeOfDirectory(path.dirname(realPath));
      // What `placeOfDirectory` would find for this directory: its files are checked next
      // (a search walks into it), and it need not be stat'ed again for each.
      if (stats?.isDirectory() === true) ancestors.set(realPath, parent ?? null);
      if (parent !== undefined) return asMatch(parent);
      if (own === undefined || own.nlink <= 1n || !own.isFile()) return undefined;
      let files = linked.get(own.dev);
      if (files === undefined) {
        files = linkedFiles(dirsByDevice.get(own.dev) ?? [], maxLinkedEntries);
        linked.set(own.dev, files);
      }
      if (files === "too many") {
        return {
          place: realPath,
          type: "file",
          kind: "unverified",
          reason: `it has ${own.nlink} hard links, and the credential stores hold too many files to tell whether one of them is this file`,
        };
      }
      const store = knownPlace(files, own);
      return store === undefined ? undefined : asMatch(store);
    },
  };
}

/** The files inside directory stores `places`, by identity; "too many" past the bound. */
function linkedFiles(
  places: readonly SecretPlace[],
  maxEntries: number,
): KnownIdentities | "too many" {
  const found: KnownIdentities = new Map();
  let visited = 0;
  for (const place of places) {
    const pending = [place.path];
    for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++visited > maxEntries) return "too many";
        const entryPath = path.join(dir, entry.name);
        if (entry.isDirectory()) pending.push(entryPath);
        else if (entry.isFile()) {
          const stats = lstatIdentity(entryPath);
          if (stats !== undefined) rememberPlace(found, stats, place);
        }
      }
    }
  }
  return found;
}

function lstatIdentity(target: string): FileIdentity | undefined {
  try {
    return fs.lstatSync(target, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
