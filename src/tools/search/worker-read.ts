/**
 * How grep's worker threads read a file: opened by its name in its directory's descriptor and
 * never through a link, bounded by the bytes actually read, and named by what was really
 * opened (see `BatchReport`). Through libc where there is one (`worker-libc.ts`), else through
 * Node's `fs`. Self-contained, as `searchWorkerMain`: these functions run from their own text.
 */
import type { workerLibc } from "./worker-libc.ts";

/** One file as a worker read it: a `FileStatus`, what was opened, and its bytes if searched. */
export interface FileRead {
  readonly status: number;
  readonly opened: string;
  readonly dev: bigint;
  readonly ino: bigint;
  readonly nlink: bigint;
  /** Valid until the next read. */
  readonly bytes?: Buffer;
}

/**
 * `read` gives a file as `FileRead`; `endBatch` lets the batch's directory go. A file of a
 * directory that could be opened and named is read through libc where there is one, else
 * through Node's `fs` as `/proc/self/fd/D/NAME` (or by path, named by its descriptor's link).
 */
export function fileReader(
  fs: typeof import("node:fs"),
  directories: typeof batchDirectories,
  libcOf: typeof workerLibc,
) {
  const libc = libcOf(fs);
  const flags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
  const procFd = fs.existsSync("/proc/self/fd");
  // Statuses are `FileStatus` values, written out: this text cannot import it.
  const unread: FileRead = { status: 0, opened: "", dev: 0n, ino: 0n, nlink: 0n };
  const { dirOf, closeDir } = directories(fs);
  // Bounded by what is read, not by what fstat says (procfs files report 0). One buffer
  // serves every file: a fresh one per file costs more than reading it. Its size is whole
  // pages: some procfs files (pagemap) refuse reads that are not multiples of 8 bytes.
  const capOf = (maxBytes: number) => Math.ceil((maxBytes + 1) / 4096) * 4096;

  /** `name` in the open directory `within`, through libc. */
  const readIn = (
    calls: NonNullable<typeof libc>,
    within: { fd: number; named: string },
    name: string,
    maxBytes: number,
  ): FileRead => {
    const fd = calls.open(within.fd, name);
    if (fd < 0) return unread;
    try {
      const stat = calls.fstat(fd);
      if (stat === undefined || !stat.isFile) return unread;
      const opened = `${within.named === "/" ? "" : within.named}/${name}`;
      const { dev, ino, nlink } = stat;
      if (stat.size > maxBytes) return { status: 2, opened, dev, ino, nlink };
      const bytes = calls.read(fd, capOf(maxBytes), stat.size);
      if (bytes === undefined) return unread;
      if (bytes.length > maxBytes) return { status: 2, opened, dev, ino, nlink };
      return { status: 1, opened, dev, ino, nlink, bytes };
    } finally {
      calls.close(fd);
    }
  };

  let scratch: Buffer | undefined;
  /** `path` through Node's `fs`. */
  const readByPath = (
    path: string,
    within: { named: string; link: string } | undefined,
    maxBytes: number,
  ): FileRead => {
    const name = path.slice(path.lastIndexOf("/") + 1);
    let fd: number | undefined;
    try {
      fd = within === undefined ? fs.openSync(path, flags) : fs.openSync(within.link + name, flags);
      const stat = fs.fstatSync(fd, { bigint: true });
      if (!stat.isFile()) return unread;
      let opened: string;
      if (within !== undefined) opened = `${within.named === "/" ? "" : within.named}/${name}`;
      else if (procFd) opened = fs.readlinkSync(`/proc/self/fd/${fd}`);
      else {
        const there = fs.statSync(path);
        if (BigInt(there.ino) !== stat.ino || BigInt(there.dev) !== stat.dev) return unread;
        opened = fs.realpathSync(path);
      }
      const found = { opened, dev: stat.dev, ino: stat.ino, nlink: stat.nlink };
      if (Number(stat.size) > maxBytes) return { ...found, status: 2 };
      const cap = capOf(maxBytes);
      if (scratch === undefined || scratch.length !== cap) scratch = Buffer.allocUnsafe(cap);
      let total = 0;
      while (total < cap) {
        const n = fs.readSync(fd, scratch, total, cap - total, null);
        if (n === 0) break;
        total += n;
      }
      if (total > maxBytes) return { ...found, status: 2 };
      return { ...found, status: 1, bytes: scratch.subarray(0, total) };
    } catch {
      return unread;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  };

  const read = (path: string, maxBytes: number): FileRead => {
    const within = procFd ? dirOf(path) : undefined;
    if (within === undefined || libc === undefined) return readByPath(path, within, maxBytes);
    return readIn(libc, within, path.slice(path.lastIndexOf("/") + 1), maxBytes);
  };
  return { read, endBatch: closeDir };
}

/**
 * The directories of a worker's batch (Linux). Each is opened once and named once, by its
 * descriptor's link in /proc/self/fd, and its files are opened as `/proc/self/fd/D/NAME`: the
 * kernel looks NAME up in that very directory (the link is to the open directory, not to a
 * path looked up again), and O_NOFOLLOW refuses a link there, so the file opened is NAME in
 * the directory named: one readlink per directory, not per file. Self-contained, as
 * `fileReader`.
 */
export function batchDirectories(fs: typeof import("node:fs")) {
  let dir: { path: string; fd: number; named: string; link: string } | undefined;
  const closeDir = () => {
    if (dir !== undefined && dir.fd >= 0) fs.closeSync(dir.fd);
    dir = undefined;
  };
  /** The open directory of `path`, or undefined when it cannot be opened or named. */
  const dirOf = (path: string) => {
    const dirPath = path.slice(0, Math.max(1, path.lastIndexOf("/")));
    if (dir?.path !== dirPath) {
      closeDir();
      let fd = -1;
      let named = "";
      try {
        fd = fs.openSync(dirPath, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
        named = fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        // Left to the file's own open and readlink.
      }
      // A directory removed since is named "... (deleted)": its files are named one by one.
      const usable = named.startsWith("/") && !named.endsWith(" (deleted)");
      dir = { path: dirPath, fd, named: usable ? named : "", link: `/proc/self/fd/${fd}/` };
    }
    return dir.named === "" ? undefined : dir;
  };
  return { dirOf, closeDir };
}
