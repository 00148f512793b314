/**
 * Path safety for the file tools (sandbox.md §3.7). File tools run in dsh itself, outside any
 * OS sandbox, and the sandboxed shell can plant symlinks for them to follow; so every path is
 * resolved to what it really names before a policy looks at it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { InvalidInputError, NotFoundError, errorMessage } from "../errors.ts";
import { isWithin, realpathOr } from "../paths.ts";
import { secretRefusal } from "./credential-paths.ts";
import { errorCode } from "../error-code.ts";
import { PathRefusedError, UnsupportedFileError, describeFileError } from "./errors.ts";
import { gitWriteProtections } from "../permission/git-repository.ts";
import type { SecretSnapshot } from "./secret-identity.ts";

/** Longest path a tool accepts, in characters (Linux `PATH_MAX`). */
const MAX_PATH_LENGTH = 4096;

/** Path segments that are never written, whatever the preset (compared case-insensitively). */
const PROTECTED_SEGMENTS: ReadonlySet<string> = new Set([".git", ".dsh"]);

/** Where a path points, before and after symlinks. */
export interface LocatedPath {
  /** Absolute and lexically normalised, symlinks kept: what the model asked for. */
  readonly path: string;
  /**
   * What it really names: the realpath of the target, or of its deepest existing ancestor
   * plus the remaining components (which hold no `..`).
   */
  readonly real: string;
  /** The realpath of the session root. */
  readonly root: string;
  readonly exists: boolean;
  /** Whether `real` is the root or under it; a symlink leaving the root is `outside`. */
  readonly place: "inside" | "outside";
}

/** A path a write may target: it is not protected, not a directory and not hard-linked. */
export interface WriteTarget extends LocatedPath {
  /** Permission bits of the existing file, kept by the atomic write; undefined for a new file. */
  readonly mode: number | undefined;
}

/**
 * Validates a model-given path and makes it absolute against the session root (never the
 * process's cwd). Throws `InvalidInputError` for an empty, NUL-bearing or over-long path.
 */
function resolveLexical(cwd: string, input: string): string {
  if (input.length === 0) throw new InvalidInputError("path is empty");
  if (input.includes("\0")) throw new InvalidInputError("path contains a NUL byte");
  if (input.length > MAX_PATH_LENGTH) {
    throw new InvalidInputError(`path is longer than ${MAX_PATH_LENGTH} characters`);
  }
  return path.resolve(cwd, input);
}

/**
 * Resolves a path and classifies it against the session root, or against the added directory
 * (`extraRoots`, realpaths) it lies in. Throws for invalid paths.
 */
export function locate(
  cwd: string,
  input: string,
  extraRoots: readonly string[] = [],
): LocatedPath {
  const lexical = resolveLexical(cwd, input);
  const sessionRoot = realpathOr(cwd);
  const { real, exists } = resolveReal(lexical);
  const root = isWithin(sessionRoot, real)
    ? sessionRoot
    : (extraRoots.find((extra) => isWithin(extra, real)) ?? sessionRoot);
  return { path: lexical, real, root, exists, place: isWithin(root, real) ? "inside" : "outside" };
}

/**
 * A path the read tools may open: it exists and is not a secret place (a credential store,
 * dsh's state directory), checked before and after symlinks and by device and inode. Throws
 * `NotFoundError` or `PathRefusedError`.
 */
export function resolveForRead(cwd: string, input: string, secrets: SecretSnapshot): LocatedPath {
  const located = locate(cwd, input);
  refuseSecrets(located, secrets, "read");
  if (!located.exists) throw new NotFoundError(`${located.path} does not exist`);
  return located;
}

/**
 * Directories given by absolute path, each as given and as it really is (the realpath of its
 * deepest existing ancestor plus the rest), so that both a lexical path and a resolved one
 * can be matched against them.
 */
export function protectedDirsOf(dirs: readonly string[]): readonly string[] {
  const all = new Set<string>();
  for (const dir of dirs) {
    const lexical = path.resolve(dir);
    all.add(lexical);
    try {
      all.add(resolveReal(lexical).real);
    } catch {
      // Unresolvable (no access): the lexical form still guards it.
    }
  }
  return [...all];
}

/**
 * Checks a write target without asking anyone: secret places (like reads), protected names
 * (`.git`, `.dsh`), `protectedDirs` (dsh's own configuration, expanded by `protectedDirsOf`),
 * directories and hard-linked files are refused here, whatever the preset and before anything
 * is read. Whether the write needs the user's approval is the caller's
 * policy (`place`).
 */
export function checkWrite(
  cwd: string,
  input: string,
  secrets: SecretSnapshot,
  protectedDirs: readonly string[],
  extraRoots: readonly string[] = [],
): WriteTarget {
  const located = locate(cwd, input, extraRoots);
  refuseSecrets(located, secrets, "write");
  const guarded = protectedSegment(located.path) ?? protectedSegment(located.real);
  if (guarded !== undefined) {
    throw new PathRefusedError(
      `${located.path} is inside ${guarded}, which dsh never writes (it controls git or dsh itself)`,
    );
  }
  // The git control files of the root the path lies in: an added directory's own repository too.
  const gitControl = gitWriteProtections(located.root, { home: os.homedir() }).find(
    (control) => isWithin(control, located.path) || isWithin(control, located.real),
  );
  if (gitControl !== undefined) {
    throw new PathRefusedError(
      `${located.path} is inside ${gitControl}, which holds the repository's hooks or config (git runs what they name), which dsh never writes`,
    );
  }
  const own = protectedDirs.find(
    (dir) => isWithin(dir, located.path) || isWithin(dir, located.real),
  );
  if (own !== undefined) {
    throw new PathRefusedError(
      `${located.path} is inside ${own}, which holds dsh's own configuration; dsh never writes it`,
    );
  }
  if (!located.exists) return { ...located, mode: undefined };
  const stats = statLocated(located);
  if (stats.isDirectory()) throw new UnsupportedFileError(`${located.path} is a directory`);
  if (!stats.isFile()) throw new UnsupportedFileError(`${located.path} is not a regular file`);
  if (stats.nlink > 1) {
    throw new PathRefusedError(
      `${located.path} has ${stats.nlink} hard links; dsh does not write a file that may alias another`,
    );
  }
  return { ...located, mode: stats.mode & 0o7777 };
}

/**
 * `stat` of a located path that existed when it was resolved. Throws `NotFoundError` when it
 * has disappeared since (another process removed it), and what `describeFileError` makes of
 * other failures.
 */
export function statLocated(located: LocatedPath): fs.Stats {
  try {
    return fs.statSync(located.real);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new NotFoundError(`${located.path} disappeared while being checked`);
    }
    throw describeFileError(error, "check", located.path);
  }
}

/**
 * Throws `PathRefusedError` when the path, before or after symlinks, is or lies in a secret
 * place; the resolved path is also compared by device and inode (a second mount point of
 * home, a hard link to a store's file).
 */
function refuseSecrets(located: LocatedPath, secrets: SecretSnapshot, action: string): void {
  const match = secrets.match(located.path) ?? secrets.match(located.real);
  if (match === undefined) return;
  throw new PathRefusedError(secretRefusal(located.path, match, action));
}

/** The protected directory a path lies in, e.g. `/r/.git`, or undefined. */
function protectedSegment(absolutePath: string): string | undefined {
  const parts = absolutePath.split(path.sep);
  const index = parts.findIndex((part) => PROTECTED_SEGMENTS.has(part.toLowerCase()));
  return index === -1 ? undefined : parts.slice(0, index + 1).join(path.sep);
}

/** realpath of the path, or of its deepest existing ancestor plus the missing components. */
function resolveReal(lexical: string): { real: string; exists: boolean } {
  const missing: string[] = [];
  let current = lexical;
  for (;;) {
    try {
      return {
        real: path.join(fs.realpathSync(current), ...missing),
        exists: missing.length === 0,
      };
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENAMETOOLONG")
        throw new InvalidInputError("path has a component that is too long");
      if (code !== "ENOENT" && code !== "ENOTDIR") {
        throw new PathRefusedError(`cannot resolve ${lexical}: ${errorMessage(error)}`);
      }
      const parent = path.dirname(current);
      if (parent === current) throw new NotFoundError(`${lexical} has no existing ancestor`);
      missing.unshift(path.basename(current));
      current = parent;
    }
  }
}
