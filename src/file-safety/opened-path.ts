/**
 * What an open descriptor really names. Checks made on a path before opening it can be
 * outraced (a directory in the path swapped for a symlink; `O_NOFOLLOW` covers only the last
 * component), so the tools check what they actually opened.
 *
 * On Linux `/proc/self/fd/<fd>` links to the opened file's real path. Elsewhere (macOS) the
 * descriptor's device and inode are compared with a fresh `stat` of the expected path: a
 * swap undone between the open and that `stat` (microseconds) is the remaining window.
 */
import * as fs from "node:fs";
import { isWithin } from "../paths.ts";
import { secretMatch, secretRefusal } from "./credential-paths.ts";
import { PathRefusedError } from "./errors.ts";
import type { SecretSnapshot } from "./secret-identity.ts";

/** What a read must not have opened, checked again on the descriptor after the open. */
export interface ReadGuard {
  /** The secret places never read: credential stores, dsh's state directory. */
  readonly secrets: SecretSnapshot;
  /** A real directory the opened file must lie under, when the read is confined to one. */
  readonly within?: string;
}

/** Whether `/proc/self/fd` names what a descriptor holds (Linux). */
export const procFdAvailable = process.platform === "linux" && fs.existsSync("/proc/self/fd");

/**
 * The real path of the file or directory `fd` holds, or undefined when it cannot be told
 * (elsewhere than Linux: `expected` no longer names the same file). On Linux a file removed
 * since it was opened reads as its last path followed by " (deleted)".
 */
export function openedPath(fd: number, expected: string): string | undefined {
  if (procFdAvailable) {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  }
  const held = fs.fstatSync(fd);
  const there = fs.statSync(expected, { throwIfNoEntry: false });
  if (there === undefined || there.ino !== held.ino || there.dev !== held.dev) return undefined;
  return fs.realpathSync(expected);
}

const DELETED_SUFFIX = " (deleted)";

/**
 * Throws `PathRefusedError` unless the file `fd` holds (opened from `realPath`, which passed
 * the checks) is outside every secret place, by path and by device and inode (a hard link to
 * a store's file is refused here), and, when the guard says so, inside its directory. The
 * caller closes the descriptor.
 */
export function checkOpenedForRead(
  fd: number,
  realPath: string,
  shownPath: string,
  guard: ReadGuard,
): void {
  const actual = openedPath(fd, realPath);
  const refused = () =>
    new PathRefusedError(
      `${shownPath} changed while being opened (a symlink was swapped into its path); nothing was read`,
    );
  if (actual === undefined) throw refused();
  // A file removed since the open: check its last path both with and without the marker.
  const names = actual.endsWith(DELETED_SUFFIX)
    ? [actual, actual.slice(0, -DELETED_SUFFIX.length)]
    : [actual];
  for (const name of names) {
    if (secretMatch(name, guard.secrets.places) !== undefined) throw refused();
    if (guard.within !== undefined && !isWithin(guard.within, name)) throw refused();
  }
  const match = guard.secrets.match(names.at(-1) ?? actual, fs.fstatSync(fd, { bigint: true }));
  if (match !== undefined) throw new PathRefusedError(secretRefusal(shownPath, match, "read"));
}
