/**
 * What dsh's host-side checks of a workspace ask of the kernel: directories held by descriptor,
 * entered one name at a time and never through a link, and names as the bytes the kernel keeps
 * (a name need not be UTF-8, and a path need not fit PATH_MAX). The walk for `.git` entries and
 * the removal of what a command may not leave go through this seam only, so a link a concurrent
 * command swaps in cannot redirect them and no name is lost to decoding.
 *
 * On Linux the calls are libc's (`openat`, `getdents64`, `fstatat`, `unlinkat`) through
 * `bun:ffi` (`libc-calls.ts`); elsewhere they go by path (`path-calls.ts`), with the limits the
 * README names. `loadDirCalls` (`load-dir-calls.ts`) picks one.
 */
/** An entry's type as a directory listing reports it (Linux `d_type`). */
export const EntryType = { unknown: 0, dir: 4, file: 8, link: 10 } as const;

/** An errno name (`ENOENT`, `ELOOP`, ...): a call's failure, as a value. */
export type Errno = string;

/** What `stat` says of one entry, never following a link. */
export interface EntryStat {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly ctimeNs: bigint;
  readonly uid: number;
  /** `st_mode`: type and permission bits. */
  readonly mode: number;
}

/**
 * Receives one entry of a listing: its name is `bytes[start, end)`, followed by a NUL at `end`;
 * `bytes` is valid only during the call (copy what is kept). Must not call the `DirCalls`.
 */
export type EntryVisitor = (bytes: Uint8Array, start: number, end: number, type: number) => void;

/**
 * Directory calls relative to open descriptors. Every `name` is one path component as bytes
 * ending in a NUL. None throws: a failure is its errno name.
 */
export interface DirCalls {
  /** Opens the directory at `path` (a realpath dsh chose, so links in it may be followed). */
  openPath(path: string): number | Errno;
  /** Opens the directory `name` in `at`; a link there fails (`ELOOP` or `ENOTDIR`). */
  openDir(at: number, name: Uint8Array): number | Errno;
  /** The entry `name` in `at` itself (a link is not followed), or `at`'s directory. */
  stat(at: number, name?: Uint8Array): EntryStat | Errno;
  /** Every entry of the directory `fd` but `.` and `..`, from its start. */
  list(fd: number, visit: EntryVisitor): Errno | undefined;
  /** Removes the entry `name` in `at`: an empty directory when `directory`, else a non-directory. */
  unlink(at: number, name: Uint8Array, directory: boolean): Errno | undefined;
  close(fd: number): void;
}

/** `..`, to reach a parent from a descriptor. */
export const PARENT: Uint8Array = new Uint8Array([0x2e, 0x2e, 0]);

/** Whether `mode` (an `st_mode`) is a directory's. */
export function isDirectoryMode(mode: number): boolean {
  return (mode & 0o170000) === 0o040000;
}

/** Whether `mode` (an `st_mode`) is a symbolic link's. */
export function isLinkMode(mode: number): boolean {
  return (mode & 0o170000) === 0o120000;
}
