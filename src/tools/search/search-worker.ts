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
  readonly paths: readonly string[];
}

/** A matching line: its 1-based number and its text, cut. */
export interface LineMatch {
  readonly line: number;
  readonly text: string;
}

/** What a worker found in one file of a request. */
export interface FileReport {
  /** The real path of what was opened (Linux: `/proc/self/fd`); null when nothing was read. */
  readonly opened: string | null;
  /** Device, inode and link count of what was opened, for the secret-place check. */
  readonly identity: { readonly dev: bigint; readonly ino: bigint; readonly nlink: bigint } | null;
  readonly tooLarge: boolean;
  /** Binary files (a NUL byte near the start) are not searched. */
  readonly binary: boolean;
  readonly matches: readonly LineMatch[];
}

/** The worker's entry point; it answers each `SearchRequest` with `{ files: FileReport[] }`. */
export function searchWorkerMain(): void {
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
  const none = { opened: null, identity: null, tooLarge: false, binary: false, matches: [] };

  const readBounded = (path: string, maxBytes: number) => {
    let fd: number | undefined;
    try {
      fd = fs.openSync(path, flags);
      const stat = fs.fstatSync(fd, { bigint: true });
      if (!stat.isFile()) return none;
      const identity = { dev: stat.dev, ino: stat.ino, nlink: stat.nlink };
      const size = Number(stat.size);
      let opened: string;
      if (procFd) opened = fs.readlinkSync(`/proc/self/fd/${fd}`);
      else {
        const there = fs.statSync(path);
        if (BigInt(there.ino) !== stat.ino || BigInt(there.dev) !== stat.dev) return none;
        opened = fs.realpathSync(path);
      }
      if (size > maxBytes) return { ...none, opened, identity, tooLarge: true };
      // Bounded by what is read, not by what fstat says (procfs files report 0): one read of
      // the stated size, growing only while the file turns out longer. Sizes stay whole pages:
      // some procfs files (pagemap) refuse reads that are not multiples of 8 bytes.
      const page = 4096;
      const cap = Math.ceil((maxBytes + 1) / page) * page;
      let buffer = new Uint8Array(Math.min(Math.ceil((size + 1) / page) * page, cap));
      let total = 0;
      for (;;) {
        if (total === buffer.length) {
          if (total > maxBytes) return { ...none, opened, identity, tooLarge: true };
          const grown = new Uint8Array(Math.min(buffer.length * 2, cap));
          grown.set(buffer);
          buffer = grown;
        }
        const n = fs.readSync(fd, buffer, total, buffer.length - total, null);
        if (n === 0) break;
        total += n;
        if (total > maxBytes) return { ...none, opened, identity, tooLarge: true };
      }
      if (total > maxBytes) return { ...none, opened, identity, tooLarge: true };
      const bytes = buffer.subarray(0, total);
      return { opened, identity, bytes };
    } catch {
      return none;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  };

  const search = (text: string, regex: RegExp, limit: number, lineChars: number) => {
    const found: { line: number; text: string }[] = [];
    let start = 0;
    for (let index = 1; start <= text.length && found.length < limit; index++) {
      let end = text.indexOf("\n", start);
      if (end === -1) end = text.length;
      if (end === text.length && start === end) break;
      let line = text.slice(start, end);
      if (line.endsWith("\r")) line = line.slice(0, -1);
      if (regex.test(line)) {
        found.push({
          line: index,
          text: line.length > lineChars ? `${line.slice(0, lineChars)}…` : line,
        });
      }
      start = end + 1;
    }
    return found;
  };

  addEventListener("message", (event: MessageEvent) => {
    // Posted by file-searcher.ts, in this shape.
    const request = event.data as SearchRequest;
    const { regex, whole } = regexFor(request.source, request.flags);
    const needle = request.literal === undefined ? undefined : Buffer.from(request.literal);
    const files = request.paths.map((path) => {
      const read = readBounded(path, request.maxBytes);
      if (!("bytes" in read) || read.bytes === undefined) return read;
      const { opened, identity, bytes } = read;
      if (bytes.subarray(0, 8192).includes(0)) return { ...none, opened, identity, binary: true };
      if (needle !== undefined) {
        const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
        if (view.indexOf(needle) === -1) return { ...none, opened, identity };
      }
      const text = decoder.decode(bytes);
      if (whole !== undefined && !whole.test(text)) return { ...none, opened, identity };
      const matches = search(text, regex, request.limit, request.lineChars);
      return { ...none, opened, identity, matches };
    });
    postMessage({ files });
  });
}
