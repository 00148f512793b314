/** Reading text files under the size and binary rules, and atomic writes that follow no symlink. */
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { NotFoundError } from "../errors.ts";
import { PathRefusedError, UnsupportedFileError, describeFileError, errorCode } from "./errors.ts";
import { lstatOrUndefined, openPinnedDirectory } from "./pinned-directory.ts";
import type { WriteTarget } from "./paths.ts";

/** Largest file the tools read, in bytes. */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** How much of a file's head is checked for a NUL byte. */
const BINARY_PROBE_BYTES = 8192;

/** Whether bytes look binary: a NUL byte in the first 8 KiB. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_PROBE_BYTES).includes(0);
}

/**
 * Reads a regular file as UTF-8 (invalid sequences replaced). The final component is opened
 * without following a symlink. Throws `NotFoundError` or `UnsupportedFileError` (directory,
 * over `MAX_FILE_BYTES`, binary) with a message the model can act on.
 */
export async function readTextFile(realPath: string, shownPath: string): Promise<string> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(realPath, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") throw new NotFoundError(`${shownPath} does not exist`);
    if (code === "ELOOP")
      throw new PathRefusedError(`${shownPath} changed into a symlink while being read`);
    if (code === "EISDIR") throw new UnsupportedFileError(`${shownPath} is a directory`);
    throw describeFileError(error, "read", shownPath);
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) {
      throw new UnsupportedFileError(`${shownPath} is a directory; use glob to list its files`);
    }
    if (!stats.isFile()) throw new UnsupportedFileError(`${shownPath} is not a regular file`);
    if (stats.size > MAX_FILE_BYTES) {
      throw new UnsupportedFileError(
        `${shownPath} is ${formatBytes(stats.size)}, over the ${formatBytes(MAX_FILE_BYTES)} limit; ` +
          "use grep to find the part you need, or bash with head/sed",
      );
    }
    const bytes = await handle.readFile();
    if (looksBinary(bytes)) {
      throw new UnsupportedFileError(
        `${shownPath} is a binary file (it has NUL bytes); it cannot be read as text`,
      );
    }
    return new TextDecoder("utf-8").decode(bytes);
  } finally {
    await handle.close();
  }
}

/**
 * Writes `content` to `target.real` atomically: a temp file in the same directory, then a
 * rename, which replaces a symlink at the destination instead of following it. Missing parent
 * directories are created. The existing file's mode is kept. Each directory is reached
 * through a pinned handle (see `openPinnedDirectory`), so a symlink swapped into the path
 * after the checks cannot redirect the write.
 */
export function writeFileAtomic(target: WriteTarget, content: string, signal: AbortSignal): void {
  signal.throwIfAborted();
  try {
    replaceFile(target, content, signal);
  } catch (error) {
    throw describeFileError(error, "write", target.path);
  }
}

function replaceFile(target: WriteTarget, content: string, signal: AbortSignal): void {
  using directory = openPinnedDirectory(path.dirname(target.real));
  // Short and fixed-length: a temp name must not overflow NAME_MAX when the file's own is long.
  const temp = directory.child(`.dsh-${crypto.randomUUID().slice(0, 8)}.tmp`);
  const flags =
    fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;
  const fd = fs.openSync(temp, flags, target.mode ?? 0o666);
  try {
    try {
      fs.writeFileSync(fd, content);
      // open() applied the umask; an existing file's mode is restored exactly.
      if (target.mode !== undefined) fs.fchmodSync(fd, target.mode);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    signal.throwIfAborted();
    directory.verify();
    const destination = directory.child(path.basename(target.real));
    if (lstatOrUndefined(destination)?.isDirectory() === true)
      throw new UnsupportedFileError(`${target.path} is a directory`);
    fs.renameSync(temp, destination);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

/** "1.5 MiB", "300 KiB", "12 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}
