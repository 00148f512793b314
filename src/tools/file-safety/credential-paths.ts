/**
 * The places the file tools never read, list or write (sandbox.md §3.7): the credential set
 * (`src/permission/credentials.ts`) and dsh's state directory, which holds every session's
 * transcript and the stored key. Matched here by path; `secret-identity.ts` matches them by
 * device and inode, also under a name a store was moved to after dsh first saw it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { realpathOr } from "../../paths.ts";
import { credentialStores } from "../../permission/credentials.ts";
import type { CredentialScope } from "../../permission/credentials.ts";
import { rememberPlace } from "./known-identities.ts";
import type { KnownIdentities } from "./known-identities.ts";

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
  /** The places by path, for lookups along a path's ancestors. */
  readonly byPath: ReadonlyMap<string, SecretPlace>;
  /** Every ancestor directory of every place: below any other directory there is no place. */
  readonly ancestors: ReadonlySet<string>;
  /**
   * The identity of every place as dsh first saw it and at every later look: a store moved to
   * another name (by a command, before the next one is sandboxed) is still known by it.
   */
  readonly known: KnownIdentities;
}

/** Where a path met a secret place. */
export interface SecretMatch {
  /** The place's path (a store, or the state directory). */
  readonly place: string;
  /** Whether the place is a directory (the path lies in it) or a file (the path is it). */
  readonly type: SecretPlace["type"];
  /**
   * A place's kind; or `environ`: a process's environment under procfs; or `unverified`: a
   * hard-linked file that cannot be told apart from a store's file.
   */
  readonly kind: SecretPlace["kind"] | "environ" | "unverified";
  readonly reason: string;
}

const STATE_REASON = "dsh's state directory: every session's transcript and the stored key";
const ENVIRON_REASON = "a process's environment, which holds dsh's API key";

/** A process's environment under procfs, by real path (`/proc/self` resolves to the pid). */
const PROC_ENVIRON = /^\/proc\/(?:\d+|self|thread-self)(?:\/task\/\d+)?\/environ$/;

/**
 * The places of `scope`'s credential set plus the state directory, each path lexical and
 * realpath'd (a store that is a symlink is matched at its target too), and the identity of
 * each that exists now, before any command could move it. Reads the disk only to resolve
 * symlinks and stat the places; a missing store keeps its lexical path.
 */
export function secretPlacesOf(scope: CredentialScope): SecretPlaces {
  const byPath = new Map<string, SecretPlace>();
  const add = (place: SecretPlace) => {
    for (const where of [place.path, realOfAncestor(place.path)]) {
      if (!byPath.has(where)) byPath.set(where, { ...place, path: where });
    }
  };
  for (const store of credentialStores(scope)) add({ ...store, kind: "credentials" });
  if (scope.stateDir !== undefined) {
    add({ type: "dir", path: path.resolve(scope.stateDir), kind: "state", reason: STATE_REASON });
  }
  const ancestors = new Set<string>();
  for (const where of byPath.keys()) {
    for (let dir = path.dirname(where); !ancestors.has(dir); dir = path.dirname(dir)) {
      ancestors.add(dir);
      if (path.dirname(dir) === dir) break;
    }
  }
  const known: KnownIdentities = new Map();
  for (const place of byPath.values()) {
    const stats = statIdentity(place.path);
    if (stats !== undefined) rememberPlace(known, stats, place);
  }
  return {
    homeDirs: homeDirsOf(scope.home),
    places: [...byPath.values()],
    byPath,
    ancestors,
    known,
  };
}

/** The identity of what `target` names (symlinks followed), or undefined. Never throws. */
export function statIdentity(target: string): fs.BigIntStats | undefined {
  try {
    // Most stores do not exist: no exception for those keeps a look cheap.
    return fs.statSync(target, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The secret place an absolute path is or lies in, compared by path segments, or undefined. */
export function secretMatch(absolutePath: string, secrets: SecretPlaces): SecretMatch | undefined {
  if (PROC_ENVIRON.test(absolutePath)) {
    return { place: absolutePath, type: "file", kind: "environ", reason: ENVIRON_REASON };
  }
  // Down from the root, one lookup per component, only while the path follows the places'
  // tree: this runs for every file a search opens, and most paths leave the tree at once.
  const target = isNormalAbsolute(absolutePath) ? absolutePath : path.resolve(absolutePath);
  for (let end = target.indexOf(path.sep, 1); ; end = target.indexOf(path.sep, end + 1)) {
    const prefix = end === -1 ? target : target.slice(0, end);
    const place = secrets.byPath.get(prefix);
    if (place !== undefined && (place.type === "dir" || end === -1)) {
      return { place: place.path, type: place.type, kind: place.kind, reason: place.reason };
    }
    if (end === -1 || !secrets.ancestors.has(prefix)) return undefined;
  }
}

/**
 * Whether `target` is an absolute POSIX path that `path.resolve` would return unchanged: no
 * empty, `.` or `..` segment and no trailing separator. Most paths a search checks are; they
 * skip the resolve.
 */
function isNormalAbsolute(target: string): boolean {
  return (
    path.sep === "/" &&
    target.startsWith("/") &&
    !target.includes("/.") &&
    !target.includes("//") &&
    (target.length === 1 || !target.endsWith("/"))
  );
}

/**
 * The refusal a tool gives for `shown`, which met `match`: "PATH holds credentials; dsh does
 * not read it", "PATH is under STORE, which holds credentials; ...", or the state directory's.
 */
export function secretRefusal(shown: string, match: SecretMatch, action: string): string {
  if (match.kind === "environ") return `${shown} is ${ENVIRON_REASON}; dsh does not ${action} it`;
  if (match.kind === "unverified") return `${shown}: ${match.reason}; dsh does not ${action} it`;
  if (match.kind === "state") {
    return `${shown} is inside ${match.place}, ${STATE_REASON}; dsh's file tools never ${action} it`;
  }
  const relation = match.type === "dir" ? "is under" : "is the same file as";
  const where = match.place === shown ? "" : ` ${relation} ${match.place}, which`;
  return `${shown}${where} holds credentials; dsh does not ${action} it`;
}

/** The home directory as given and its realpath (they differ when `$HOME` is a symlink). */
function homeDirsOf(homeDir: string): readonly string[] {
  const real = realpathOr(homeDir);
  return real === homeDir ? [homeDir] : [homeDir, real];
}

/**
 * The realpath of `target`, or of its deepest existing ancestor plus the rest: a store not
 * created yet under a symlinked `~/.config` is matched where it would appear. Most stores do
 * not exist, so ancestors are probed with `lstat`, which does not throw for them.
 */
function realOfAncestor(target: string): string {
  const missing: string[] = [];
  let current = target;
  while (!exists(current)) {
    const parent = path.dirname(current);
    if (parent === current) return target;
    missing.unshift(path.basename(current));
    current = parent;
  }
  return path.join(realpathOr(current), ...missing);
}

function exists(target: string): boolean {
  try {
    return fs.lstatSync(target, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
