/**
 * The places the file tools never read, list or write (sandbox.md §3.7): the credential set
 * (`src/permission/credentials.ts`) and dsh's state directory, which holds every session's
 * transcript and the stored key. Matched here by path; `secret-identity.ts` matches them by
 * device and inode, also under a name a store was moved to after dsh first saw it.
 *
 * Paths are compared as the file system compares names: on Windows without regard to case and
 * with either separator (`C:/Users/u/.SSH` is `c:\users\u\.ssh`), and elsewhere without
 * regard to case when the home directory's volume folds case (APFS by default), so a store
 * that does not exist yet is refused under any spelling too.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { foldsCase, realpathOr, realpathOfAncestor } from "../paths.ts";
import { credentialStores } from "../permission/credentials.ts";
import type { CredentialScope } from "../permission/credentials.ts";
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
  /** How paths are spelled and compared (`byPath` and `ancestors` hold `keyOf` forms). */
  readonly style: PathStyle;
}

/** How a file system spells and compares paths. */
export interface PathStyle {
  readonly paths: typeof path.posix;
  /** Names differ only in case are the same name. */
  readonly folds: boolean;
}

/** This machine's style for paths under `home`. */
export function pathStyleOf(home: string): PathStyle {
  if (process.platform === "win32") return { paths: path.win32, folds: true };
  return { paths: path.posix, folds: foldsCase(home) };
}

/** The form of an absolute path that `byPath` and `ancestors` are keyed by. */
function keyOf(target: string, style: PathStyle): string {
  const normal =
    style.paths === path.posix && isNormalAbsolute(target) ? target : style.paths.resolve(target);
  return style.folds ? normal.toLowerCase() : normal;
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
export function secretPlacesOf(
  scope: CredentialScope,
  style: PathStyle = pathStyleOf(scope.home),
): SecretPlaces {
  const byPath = new Map<string, SecretPlace>();
  const add = (place: SecretPlace) => {
    for (const where of [place.path, realpathOfAncestor(place.path)]) {
      const key = keyOf(where, style);
      if (!byPath.has(key)) byPath.set(key, { ...place, path: where });
    }
  };
  for (const store of credentialStores(scope, style.paths)) add({ ...store, kind: "credentials" });
  if (scope.stateDir !== undefined) {
    const stateDir = style.paths.resolve(scope.stateDir);
    add({ type: "dir", path: stateDir, kind: "state", reason: STATE_REASON });
  }
  const { dirname } = style.paths;
  const ancestors = new Set<string>();
  for (const where of byPath.keys()) {
    for (let dir = dirname(where); !ancestors.has(dir); dir = dirname(dir)) {
      ancestors.add(dir);
      if (dirname(dir) === dir) break;
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
    style,
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
  const { paths } = secrets.style;
  const target = keyOf(absolutePath, secrets.style);
  // A POSIX root is "/" or nothing: no `parse` (an object per call) for the common case.
  const root =
    paths === path.posix ? (target.startsWith("/") ? "/" : "") : paths.parse(target).root;
  const first = target.indexOf(paths.sep, root.length);
  if (root.length > 1 && !secrets.ancestors.has(root) && !secrets.byPath.has(root))
    return undefined;
  for (let end = first; ; end = target.indexOf(paths.sep, end + 1)) {
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
