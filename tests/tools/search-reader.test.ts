/**
 * How grep's worker threads read a file, run here on the test's own thread: through libc's
 * `openat` on the directory's descriptor and through Node's `fs`, which must agree on every
 * file, link and bound.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { FileStatus } from "../../src/tools/search/search-worker.ts";
import { workerLibc } from "../../src/tools/search/worker-libc.ts";
import { batchDirectories, fileReader } from "../../src/tools/search/worker-read.ts";

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "dsh-search-reader-")));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const dir = path.join(root, "d");
fs.mkdirSync(dir);
const outside = path.join(root, "outside.txt");
fs.writeFileSync(outside, "outside text\n");
fs.writeFileSync(path.join(dir, "a.txt"), "alpha\nbeta\n");
fs.writeFileSync(path.join(dir, "big.txt"), "x".repeat(5000));
fs.writeFileSync(path.join(dir, "empty.txt"), "");
fs.symlinkSync(outside, path.join(dir, "link.txt"));
fs.mkdirSync(path.join(dir, "sub"));

const readers = [
  { name: "libc", libc: workerLibc },
  { name: "fs", libc: () => undefined },
] as const;

test("libc's calls are there on Linux x64 and arm64, so the workers use them", () => {
  const expected = process.platform === "linux" && ["x64", "arm64"].includes(process.arch);
  expect(workerLibc(fs) !== undefined).toBe(expected);
});

describe.each(readers)("a worker's reader through $name", ({ libc }) => {
  const reader = fileReader(fs, batchDirectories, libc);
  const read = (name: string, maxBytes = 4096) => {
    const result = reader.read(path.join(dir, name), maxBytes);
    const bytes = result.bytes === undefined ? undefined : Buffer.from(result.bytes).toString();
    reader.endBatch();
    return { ...result, bytes };
  };

  test("reads a file whole and names what it opened by path and identity", () => {
    const result = read("a.txt");
    const stat = fs.statSync(path.join(dir, "a.txt"), { bigint: true });
    expect(result).toEqual({
      status: FileStatus.searched,
      opened: path.join(dir, "a.txt"),
      dev: stat.dev,
      ino: stat.ino,
      nlink: stat.nlink,
      bytes: "alpha\nbeta\n",
    });
  });

  test("reads an empty file as empty", () => {
    expect(read("empty.txt")).toMatchObject({ status: FileStatus.searched, bytes: "" });
  });

  test("never follows a link at the file's name", () => {
    expect(read("link.txt").status).toBe(FileStatus.unread);
  });

  test("reads neither a directory nor a missing file", () => {
    expect(read("sub").status).toBe(FileStatus.unread);
    expect(read("missing.txt").status).toBe(FileStatus.unread);
  });

  test("reports a file over the bound too large and gives none of its bytes", () => {
    const result = read("big.txt", 4999);
    expect(result.status).toBe(FileStatus.tooLarge);
    expect(result.bytes).toBeUndefined();
    expect(read("big.txt", 5000)).toMatchObject({ status: FileStatus.searched });
  });

  test("reads a procfs file, whose size says 0, to its end", () => {
    const result = reader.read("/proc/self/status", 1 << 20);
    reader.endBatch();
    expect(result.status).toBe(FileStatus.searched);
    expect(Buffer.from(result.bytes ?? new Uint8Array()).toString()).toContain("\nPid:");
  });

  test("opens a FIFO without waiting for a writer, and does not read it", () => {
    const fifo = path.join(dir, `fifo-${libc === workerLibc ? "libc" : "fs"}`);
    if (spawnSync("mkfifo", [fifo]).status !== 0) throw new Error("mkfifo failed");
    expect(read(path.basename(fifo)).status).toBe(FileStatus.unread);
  });

  test("keeps to the directory it opened when that path is swapped for a link mid-batch", () => {
    const held = path.join(root, `held-${libc === workerLibc ? "libc" : "fs"}`);
    const elsewhere = `${held}-elsewhere`;
    fs.mkdirSync(held);
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(held, "a.txt"), "held\n");
    fs.writeFileSync(path.join(held, "b.txt"), "held too\n");
    fs.writeFileSync(path.join(elsewhere, "b.txt"), "elsewhere\n");
    expect(reader.read(path.join(held, "a.txt"), 4096).opened).toBe(path.join(held, "a.txt"));
    // The batch's next file is looked up in the directory it holds, not through the link.
    fs.renameSync(held, `${held}.moved`);
    fs.symlinkSync(elsewhere, held);
    const second = reader.read(path.join(held, "b.txt"), 4096);
    expect(second.status).toBe(FileStatus.searched);
    expect(Buffer.from(second.bytes ?? new Uint8Array()).toString()).toBe("held too\n");
    reader.endBatch();
    // The next batch opens the path anew, and names what it really opened.
    const next = reader.read(path.join(held, "b.txt"), 4096);
    reader.endBatch();
    expect(next.opened).toBe(path.join(elsewhere, "b.txt"));
  });
});
