/**
 * The places the file tools never read, list or write (sandbox.md §3.7): the credential set
 * (`src/permission/credentials.ts`) and dsh's state directory, which holds every session's
 * transcript and the stored key. Matched here by path; `secret-identity.ts` matches them by
 * device and inode.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { credentialStores } from "../permission/credentials.ts";
import type { CredentialScope } from "../permission/credentials.ts";
import { relativeInside } from "./containment.ts";

/** A place the file tools refuse, at one absolute path. */
export interface SecretPlace {
  readonly type: "dir" | "file";
  readonly path: string;
  /** `credentials`: a store of the credential set; `state`: dsh's state directory. */
  readonly kind: "credentials" | "state";
  readonly reason: string;
}

/** Everything the file tools refuse, each path both as given and as it really is. */
export interface SecretPlaces {
  /** The home directory as given and its realpath (the write policy's dotfile rule uses it). */
  readonly homeDirs: readonly string[];
  readonly places: readonly SecretPlace[];
}

/** Where a path met a secret place. */
export interface SecretMatch {
  /** The place's path (a store, or the state directory). */
  readonly place: string;
  /** A place's kind, or `environ`: a process's environment under procfs. */
  readonly kind: SecretPlace["kind"] | "environ";
  readonly reason: string;
}

const STATE_REASON = "dsh's state directory: every session's transcript and the stored key";
const ENVIRON_REASON = "a process's environment, which holds dsh's API key";

/** A process's environment under procfs, by real path (`/proc/self` resolves to the pid). */
const PROC_ENVIRON = /^\/proc\/(?:\d+|self|thread-self)(?:\/task\/\d+)?\/environ$/;

/**
 * The places of `scope`'s credential set plus the state directory, each path lexical and
 * realpath'd (a store that is a symlink is matched at its target too). Reads the disk only to
 * resolve symlinks; a missing store keeps its lexical path.
 */
export function secretPlacesOf(scope: CredentialScope): SecretPlaces {
  const places: SecretPlace[] = [];
  const seen = new Set<string>();
  const add = (place: SecretPlace) => {
    for (const where of [place.path, realpathOr(place.path)]) {
      if (seen.has(where)) continue;
      seen.add(where);
      places.push({ ...place, path: where });
    }
  };
  for (const store of credentialStores(scope)) add({ ...store, kind: "credentials" });
  if (scope.stateDir !== undefined) {
    add({ type: "dir", path: path.resolve(scope.stateDir), kind: "state", reason: STATE_REASON });
  }
  return { homeDirs: homeDirsOf(scope.home), places };
}

/** The secret place an absolute path is or lies in, compared by path segments, or undefined. */
export function secretMatch(absolutePath: string, secrets: SecretPlaces): SecretMatch | undefined {
  if (PROC_ENVIRON.test(absolutePath)) {
    return { place: absolutePath, kind: "environ", reason: ENVIRON_REASON };
  }
  for (const place of secrets.places) {
    const rel = relativeInside(place.path, absolutePath);
    if (rel === undefined || (rel !== "" && place.type === "file")) continue;
    return { place: place.path, kind: place.kind, reason: place.reason };
  }
  return undefined;
}

/**
 * The refusal a tool gives for `shown`, which met `match`: "PATH holds credentials; dsh does
 * not read it", "PATH is under STORE, which holds credentials; ...", or the state directory's.
 */
export function secretRefusal(shown: string, match: SecretMatch, action: string): string {
  if (match.kind === "environ") return `${shown} is ${ENVIRON_REASON}; dsh does not ${action} it`;
  if (match.kind === "state") {
    return `${shown} is inside ${match.place}, ${STATE_REASON}; dsh's file tools never ${action} it`;
  }
  const where = match.place === shown ? "" : ` is under ${match.place}, which`;
  return `${shown}${where} holds credentials; dsh does not ${action} it`;
}

/** The home directory as given and its realpath (they differ when `$HOME` is a symlink). */
export function homeDirsOf(homeDir: string): readonly string[] {
  const real = realpathOr(homeDir);
  return real === homeDir ? [homeDir] : [homeDir, real];
}

function realpathOr(target: string): string {
  try {
    return fs.realpathSync(target);
  } catch {
    return target;
  }
}
