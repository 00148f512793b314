/**
 * What grep's worker threads run: each reads a batch of files itself (synchronously, off the
 * event loop), bounded by the bytes actually read, and tests the regular expression line by
 * line. A pattern that backtracks for long freezes only its thread, which the main side
 * terminates. Each file's report names what was really opened, so the main side can refuse
 * the results of a file whose path was swapped for a link into a place grep must not read.
 *
 * `searchWorkerMain` is started from its own source text (see `file-searcher.ts`), so it must
 * stay self-contained: no imports, no module-level names, only what a worker has
 * (`process.getBuiltinModule` for Node's `fs` is one).
 */

/** One batch of files to search, posted to a worker. */
export interface SearchRequest {
  readonly source: string;
  readonly flags: string;
  /** Matching lines kept per file. */
  readonly limit: number;
  /** Characters kept of a matching line; the rest is replaced by "…". */
  readonly lineChars: number;
  /** Files larger than this are reported `tooLarge`, never read whole. */
  readonly maxBytes: number;
  /** Text every match contains (see `requiredLiteral`): a file without it is not decoded. */
  readonly literal?: string;
  /**
   * The files' paths joined by NUL, which no path holds: one string crosses to a thread far
   * cheaper than an array of them.
   */
  readonly paths: string;
}

/** What came of one file of a batch (`BatchReport.status`). */
export const FileStatus = {
  /** Nothing was read: not there, not a regular file, or not openable. */
  unread: 0,
  searched: 1,
  tooLarge: 2,
  /** Binary files (a NUL byte near the start) are not searched. */
  binary: 3,
} as const;

/** A matching line of one file of a batch: its 1-based number and its text, cut. */
export interface LineMatch {
  /** The file's index in the batch. */
  readonly file: number;
  readonly line: number;
  readonly text: string;
}

/**
 * What a worker found in one batch, in the request's path order, packed so a reply of many
 * files is a few typed arrays rather than an object per file. Each report names what was
 * really opened, so the main side can refuse the results of a file whose path was swapped for
 * a link into a place grep must not read.
 */
export interface BatchReport {
  /** Per file, a `FileStatus`. */
  readonly status: Uint8Array;
  /** Per file three values: device, inode and link count of what was opened (0 if unread). */
  readonly identity: BigUint64Array;
  /**
   * Files whose real opened path (Linux: `/proc/self/fd`) is not the path asked for: a link
   * in the path, or a file removed since (" (deleted)"). Every other file opened that path.
   */
  readonly moved: readonly { readonly file: number; readonly opened: string }[];
  /** Matching lines, by file then line. */
  readonly matches: readonly LineMatch[];
}

/**
 * The worker's entry point; it answers each `SearchRequest` with a `BatchReport`. Started as
 * `(searchWorkerMain)(batchDirectories)`: `directories` is `batchDirectories`, passed in as
 * its own text, since this function may name nothing outside itself.
 */
export function searchWorkerMain(directories: typeof batchDirectories): void {
  // Not `require` or an import: the bundler would rename them, and this text runs unbundled.
  const fs = process.getBuiltinModule("node:fs");
  const flags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;
  const procFd = fs.existsSync("/proc/self/fd");
  const decoder = new TextDecoder("utf-8");
  let compiled: { key: string; regex: RegExp; whole: RegExp | undefined } | undefined;
  const regexFor = (source: string, regexFlags: string) => {
    const key = `${regexFlags}/${source}`;
    if (compiled?.key !== key) {
      // A whole-file test first: most files hold no match, and one scan of the text is much
      // cheaper than one per line. Without lookarounds, a line that matches makes the whole
      // text (multiline) match too, so a miss is certain; lookarounds could see across lines.
      const lookaround = /\(\?<?[=!]/.test(source);
      const whole = lookaround ? undefined : new RegExp(source, `${regexFlags.replace("m", "")}m`);
      compiled = { key, regex: new RegExp(source, regexFlags), whole };
    }
    return compiled;
  };
  // Statuses are `FileStatus` values, written out: this text cannot import it.
  const unread = { status: 0, opened: "", dev: 0n, ino: 0n, nlink: 0n };

  const { dirOf, closeDir } = directories(fs);

  let scratch: Buffer | undefined;
  /** The file's bytes are valid until the next call. */
  const readBounded = (path: string, maxBytes: number) => {
    let fd: number | undefined;
    try {
      const within = procFd ? dirOf(path) : undefined;
      const name = path.slice(path.lastIndexOf("/") + 1);
      fd = within === undefined ? fs.openSync(path, flags) : fs.openSync(within.link + name, flags);
      const stat = fs.fstatSync(fd, { bigint: true });
      if (!stat.isFile()) return unread;
      const size = Number(stat.size);
      let opened: string;
      if (within !== undefined) opened = `${within.named === "/" ? "" : within.named}/${name}`;
      else if (procFd) opened = fs.readlinkSync(`/proc/self/fd/${fd}`);
      else {
        const there = fs.statSync(path);
        if (BigInt(there.ino) !== stat.ino || BigInt(there.dev) !== stat.dev) return unread;
        opened = fs.realpathSync(path);
      }
      const found = { opened, dev: stat.dev, ino: stat.ino, nlink: stat.nlink };
      const tooLarge = { ...found, status: 2 };
      if (size > maxBytes) return tooLarge;
      // Bounded by what is read, not by what fstat says (procfs files report 0). One buffer
      // serves every file: a fresh one per file costs more than reading it. Its size is whole
      // pages: some procfs files (pagemap) refuse reads that are not multiples of 8 bytes.
      const page = 4096;
      const cap = Math.ceil((maxBytes + 1) / page) * page;
      if (scratch === undefined || scratch.length !== cap) scratch = Buffer.allocUnsafe(cap);
      let total = 0;
      while (total < cap) {
        const n = fs.readSync(fd, scratch, total, cap - total, null);
        if (n === 0) break;
        total += n;
      }
      if (total > maxBytes) return tooLarge;
      return { ...found, status: 1, bytes: scratch.subarray(0, total) };
    } catch {
      return unread;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  };

  const search = (
    text: string,
    regex: RegExp,
    file: number,
    limit: number,
    lineChars: number,
    found: { file: number; line: number; text: string }[],
  ) => {
    let kept = 0;
    let start = 0;
    for (let index = 1; start <= text.length && kept < limit; index++) {
      let end = text.indexOf("\n", start);
      if (end === -1) end = text.length;
      if (end === text.length && start === end) break;
      let line = text.slice(start, end);
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (regex.test(line)) {
        kept++;
        found.push({
          file,
          line: index,
          text: line.length > lineChars ? `${line.slice(0, lineChars)}…` : line,
        });
      }
      start = end + 1;
    }
  };

  addEventListener("message", (event: MessageEvent) => {
    // Posted by file-searcher.ts, in this shape.
    const request = event.data as SearchRequest;
    const { regex, whole } = regexFor(request.source, request.flags);
    const needle = request.literal === undefined ? undefined : Buffer.from(request.literal);
    const paths = request.paths.split("\0");
    const status = new Uint8Array(paths.length);
    const identity = new BigUint64Array(paths.length * 3);
    const moved: { file: number; opened: string }[] = [];
    const matches: { file: number; line: number; text: string }[] = [];
    for (const [file, path] of paths.entries()) {
      const read = readBounded(path, request.maxBytes);
      status[file] = read.status;
      if (read.status === 0) continue;
      identity[file * 3] = read.dev;
      identity[file * 3 + 1] = read.ino;
      identity[file * 3 + 2] = read.nlink;
      if (read.opened !== path) moved.push({ file, opened: read.opened });
      const bytes = "bytes" in read ? read.bytes : undefined;
      if (bytes === undefined) continue;
      if (bytes.subarray(0, 8192).indexOf(0) !== -1) {
        status[file] = 3;
        continue;
      }
      if (needle !== undefined && bytes.indexOf(needle) === -1) continue;
      const text = decoder.decode(bytes);
      if (whole !== undefined && !whole.test(text)) continue;
      search(text, regex, file, request.limit, request.lineChars, matches);
    }
    closeDir();
    postMessage({ status, identity, moved, matches }, [status.buffer, identity.buffer]);
  });
}

/**
 * The directories of a worker's batch (Linux). Each is opened once and named once, by its
 * descriptor's link in /proc/self/fd, and its files are opened as `/proc/self/fd/D/NAME`: the
 * kernel looks NAME up in that very directory (the link is to the open directory, not to a
 * path looked up again), and O_NOFOLLOW refuses a link there, so the file opened is NAME in
 * the directory named: one readlink per directory, not per file. Self-contained, as
 * `searchWorkerMain`.
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
