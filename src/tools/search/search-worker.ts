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

import type { batchDirectories, fileReader } from "./worker-read.ts";
import type { workerLibc } from "./worker-libc.ts";

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
 * `(searchWorkerMain)(fileReader, batchDirectories, workerLibc)`: they are passed in as their
 * own text, since this function may name nothing outside itself.
 */
export function searchWorkerMain(
  readerOf: typeof fileReader,
  directories: typeof batchDirectories,
  libcOf: typeof workerLibc,
): void {
  // Not `require` or an import: the bundler would rename them, and this text runs unbundled.
  const fs = process.getBuiltinModule("node:fs");
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
  const { read: readBounded, endBatch } = readerOf(fs, directories, libcOf);

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
      const bytes = read.bytes;
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
    endBatch();
    postMessage({ status, identity, moved, matches }, [status.buffer, identity.buffer]);
  });
}
