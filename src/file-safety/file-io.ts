/**
 * Reading text files under the size, binary and UTF-8 rules, without blocking on special
 * files; and atomic writes that follow no symlink.
 */
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { NotFoundError } from "../errors.ts";
import { errorCode } from "../error-code.ts";
import { PathRefusedError, UnsupportedFileError, describeFileError } from "./errors.ts";
import { checkOpenedForRead } from "./opened-path.ts";
import type { ReadGuard } from "./opened-path.ts";
import { lstatOrUndefined, openPinnedDirectory } from "./pinned-directory.ts";
import type { WriteTarget } from "./paths.ts";

/** Largest file the tools read, in bytes. */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** How much of a file's head is checked for a NUL byte. */
const BINARY_PROBE_BYTES = 8192;

/** Whether bytes look binary: a NUL byte in the first 8 KiB. */
function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_PROBE_BYTES).includes(0);
}

/**
 * Flags of every read the tools make. `O_NOFOLLOW`: the final component is never a symlink
 * swapped in after the checks. `O_NONBLOCK`: opening a FIFO does not wait for a writer (which
 * may never come, and a blocked open cannot be cancelled); the fstat after it refuses anything
 * that is not a regular file. On a regular file the flag changes nothing.
 */
const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/** An open regular file: read it, then close it (dispose). */
export interface OpenedFile extends AsyncDisposable {
  /** The descriptor, for checks on what was opened; closed by dispose. */
  readonly fd: number;
  /** What `fstat` says: a hint, never a bound (procfs and sysfs files say 0, whatever they hold). */
  readonly size: number;
  /** Reads from the start, at most `limit` bytes; `complete` is false when more remain. */
  read(limit: number): Promise<BoundedBytes>;
}

/** Bytes read under a limit. */
export interface BoundedBytes {
  readonly bytes: Uint8Array;
  /** True when the file ended within the limit. */
  readonly complete: boolean;
}

/** First buffer of a read whose size hint is 0 or small; it grows by doubling. */
const FIRST_CHUNK_BYTES = 64 * 1024;

/**
 * Opens a regular file for reading without following a final symlink and without blocking,
 * then checks what was opened against `guard` (a directory in the path may have been swapped
 * for a symlink since the path was checked). Throws `NotFoundError`, `PathRefusedError` (a
 * symlink appeared, or the file opened is one the guard refuses) or `UnsupportedFileError`
 * (a directory, a FIFO, a device, a socket).
 */
export async function openRegularFile(
  realPath: string,
  shownPath: string,
  guard: ReadGuard,
): Promise<OpenedFile> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(realPath, READ_FLAGS);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT") throw new NotFoundError(`${shownPath} does not exist`);
    if (code === "ELOOP")
      throw new PathRefusedError(`${shownPath} changed into a symlink while being read`);
    if (code === "EISDIR") throw new UnsupportedFileError(`${shownPath} is a directory`);
    throw describeFileError(error, "read", shownPath);
  }
  try {
    checkOpenedForRead(handle.fd, realPath, shownPath, guard);
    const stats = await handle.stat();
    if (stats.isDirectory()) {
      throw new UnsupportedFileError(`${shownPath} is a directory; use glob to list its files`);
    }
    if (stats.isFIFO())
      throw new UnsupportedFileError(`${shownPath} is a named pipe (FIFO), not a regular file`);
    if (!stats.isFile()) throw new UnsupportedFileError(`${shownPath} is not a regular file`);
    return {
      fd: handle.fd,
      size: stats.size,
      read: (limit) => readBounded(handle, limit, stats.size, shownPath),
      [Symbol.asyncDispose]: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Bytes read past the limit to tell whether more remain. A whole page, not one byte: some
 * kernel files (`/proc/<pid>/pagemap`) refuse reads that are not multiples of 8 bytes.
 */
const PROBE_BYTES = 4096;

/**
 * Reads at most `limit` bytes, counting what the reads return, never what `fstat` claimed:
 * the buffer starts at the claimed size (or 64 KiB when the claim is 0) and grows only as
 * bytes arrive. A file that ends where it claimed comes back in a buffer of its exact size.
 * Throws `UnsupportedFileError` for a file that does not read like one (EINVAL), and what
 * `describeFileError` makes of other failures.
 */
async function readBounded(
  handle: fsp.FileHandle,
  limit: number,
  sizeHint: number,
  shownPath: string,
): Promise<BoundedBytes> {
  const wanted = limit + PROBE_BYTES;
  const readInto = (target: Uint8Array, offset: number, length: number) =>
    handle.read(target, offset, length, null).then(
      (read) => read.bytesRead,
      (error: unknown) => {
        if (errorCode(error) === "EINVAL") {
          throw new UnsupportedFileError(`${shownPath} cannot be read as a plain file (EINVAL)`);
        }
        throw describeFileError(error, "read", shownPath);
      },
    );
  // Unpooled and unzeroed: only the bytes read are ever exposed.
  let buffer: Uint8Array = Buffer.allocUnsafeSlow(
    Math.min(wanted, sizeHint > 0 ? sizeHint : FIRST_CHUNK_BYTES),
  );
  let total = 0;
  for (;;) {
    if (total === buffer.length) {
      if (total >= wanted) break;
      // Full: a small probe tells the end of the file from more to come.
      const probe = Buffer.allocUnsafeSlow(PROBE_BYTES);
      const more = await readInto(probe, 0, PROBE_BYTES);
      if (more === 0) break;
      const grown = Buffer.allocUnsafeSlow(
        Math.min(wanted, Math.max(buffer.length * 2, total + more)),
      );
      grown.set(buffer);
      grown.set(probe.subarray(0, Math.min(more, grown.length - total)), total);
      buffer = grown;
      total = Math.min(total + more, grown.length);
      continue;
    }
    const bytesRead = await readInto(buffer, total, buffer.length - total);
    if (bytesRead === 0) break;
    total += bytesRead;
  }
  if (total > limit) return { bytes: buffer.subarray(0, limit), complete: false };
  return { bytes: total === buffer.length ? buffer : buffer.subarray(0, total), complete: true };
}

/**
 * The bytes of a text file. Throws what `openRegularFile` throws, and `UnsupportedFileError`
 * for a file over `MAX_FILE_BYTES` or a binary one, with a message the model can act on.
 */
export async function readTextBytes(
  realPath: string,
  shownPath: string,
  guard: ReadGuard,
): Promise<Uint8Array> {
  await using file = await openRegularFile(realPath, shownPath, guard);
  if (file.size > MAX_FILE_BYTES) {
    throw new UnsupportedFileError(
      `${shownPath} is ${formatBytes(file.size)}, over the ${formatBytes(MAX_FILE_BYTES)} limit; ` +
        "use grep to find the part you need, or bash with head/sed",
    );
  }
  const { bytes, complete } = await file.read(MAX_FILE_BYTES);
  if (!complete) {
    throw new UnsupportedFileError(
      `${shownPath} holds more than ${formatBytes(MAX_FILE_BYTES)} (its size is not known before reading), ` +
        "over the limit; use grep to find the part you need, or bash with head/sed",
    );
  }
  if (looksBinary(bytes)) {
    throw new UnsupportedFileError(
      `${shownPath} is a binary file (it has NUL bytes); it cannot be read as text`,
    );
  }
  return bytes;
}

/**
 * Reads a text file to change it: strictly UTF-8, with a leading byte order mark kept as
 * U+FEFF, so that writing the text back reproduces every byte the change does not touch.
 * Throws what `readTextBytes` throws, and `UnsupportedFileError` when the file is not UTF-8.
 */
export async function readTextFile(
  realPath: string,
  shownPath: string,
  guard: ReadGuard,
): Promise<string> {
  const bytes = await readTextBytes(realPath, shownPath, guard);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new UnsupportedFileError(
      `${shownPath} is not UTF-8 text; edit it another way (dsh's file tools would change its other bytes)`,
    );
  }
}

/** Text for display: a byte order mark dropped, invalid sequences shown as U+FFFD. */
export function decodeForDisplay(bytes: Uint8Array): {
  readonly text: string;
  readonly valid: boolean;
} {
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), valid: true };
  } catch {
    return { text: new TextDecoder("utf-8").decode(bytes), valid: false };
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
