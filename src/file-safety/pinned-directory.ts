/**
 * A directory held open while a write happens in it, so that a symlink swapped into the path
 * after the policy checks cannot redirect the write.
 *
 * On Linux every later operation goes through `/proc/self/fd/<fd>/<name>`: the kernel resolves
 * that to the directory the descriptor already holds (the effect of `openat`/`renameat`, which
 * Node does not expose), and each missing parent is created and opened the same way without
 * following symlinks. The window is closed there.
 *
 * Elsewhere (macOS) there is no such path: operations use the directory's path, and `verify()`
 * re-checks right before the rename that the path still leads to the held directory. A swap
 * between that check and the rename (microseconds) is the remaining, documented window.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { errorCode } from "../error-code.ts";
import { PathRefusedError, UnsupportedFileError } from "./errors.ts";
import { openedPath, procFdAvailable as viaProc } from "./opened-path.ts";

/** A held directory; dispose closes it. */
export interface PinnedDirectory extends Disposable {
  /** A path naming `name` inside the held directory. */
  child(name: string): string;
  /** Throws `PathRefusedError` unless the directory's path still leads to the held directory. */
  verify(): void;
}

const DIRECTORY_FLAGS = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;

/**
 * Opens `realDir` (a path without symlinks), creating its missing components one by one.
 * Throws `PathRefusedError` when a component is or becomes a symlink, and
 * `UnsupportedFileError` when one is a file.
 */
export function openPinnedDirectory(realDir: string): PinnedDirectory {
  const missing: string[] = [];
  let existing = realDir;
  while (lstatOrUndefined(existing) === undefined) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    missing.unshift(path.basename(existing));
    existing = parent;
  }
  let fd = openDirectory(existing, existing);
  let current = existing;
  try {
    checkHeld(fd, current);
    for (const name of missing) {
      const next = path.join(current, name);
      const childPath = viaProc ? `/proc/self/fd/${fd}/${name}` : next;
      try {
        fs.mkdirSync(childPath);
      } catch (error) {
        if (errorCode(error) !== "EEXIST") throw error;
      }
      const childFd = openDirectory(childPath, next);
      fs.closeSync(fd);
      fd = childFd;
      current = next;
    }
    checkHeld(fd, realDir);
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  const held = fd;
  return {
    child: (name) => (viaProc ? `/proc/self/fd/${held}/${name}` : path.join(realDir, name)),
    verify: () => checkHeld(held, realDir),
    [Symbol.dispose]: () => fs.closeSync(held),
  };
}

/** `lstat` of a path, or undefined when it cannot be read (missing, no access). */
export function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

function openDirectory(openPath: string, shownPath: string): number {
  try {
    return fs.openSync(openPath, DIRECTORY_FLAGS);
  } catch (error) {
    const code = errorCode(error);
    if (
      code === "ELOOP" ||
      (code === "ENOTDIR" && lstatOrUndefined(openPath)?.isSymbolicLink() === true)
    ) {
      throw new PathRefusedError(
        `${shownPath} is a symlink (it changed after the checks); nothing was written`,
      );
    }
    if (code === "ENOTDIR" || code === "EEXIST") {
      throw new UnsupportedFileError(`${shownPath} is not a directory`);
    }
    throw error;
  }
}

/** The held descriptor must be the directory at `expected`. */
function checkHeld(fd: number, expected: string): void {
  const actual = openedPath(fd, expected);
  if (actual !== expected) {
    throw new PathRefusedError(
      `${expected} changed while being written (a symlink was swapped in); nothing was written`,
    );
  }
}
