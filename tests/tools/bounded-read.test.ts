import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { runIf } from "../support/gate.ts";
import { useFileTools } from "./harness.ts";

const procTest = runIf(process.platform === "linux", test, "procfs is Linux's");

const fx = useFileTools();

/** A sparse file of `bytes` that occupies no disk: its size is a claim, not content. */
function sparse(relative: string, bytes: number): string {
  const file = fx.box.write(relative, "");
  fs.truncateSync(file, bytes);
  return file;
}

// procfs reports size 0 for files that hold any amount; `/proc/self/pagemap` holds 8 bytes per
// page of the address space (terabytes). A read bounded by fstat's size never stops there.
describe("reads are bounded by the bytes actually read", () => {
  procTest(
    "read_file refuses /proc/self/pagemap after 2 MiB, and reads a small procfs file whole",
    async () => {
      const pagemap = await fx.run("read_file", { path: "/proc/self/pagemap" });
      expect(pagemap.result).toEqual({
        isError: true,
        output:
          "/proc/self/pagemap holds more than 2 MiB (its size is not known before reading), over the limit; " +
          "use grep to find the part you need, or bash with head/sed",
      });
      const status = await fx.run("read_file", { path: "/proc/self/status" });
      expect(status.result.isError).toBe(false);
      expect(status.result.output).toMatch(/^ {5}1\tName:\t/);
    },
  );

  test("read_file refuses a process's environment, which holds dsh's API key", async () => {
    for (const file of ["/proc/self/environ", `/proc/${process.pid}/environ`]) {
      const call = await fx.run("read_file", { path: file });
      expect(call.result).toEqual({
        isError: true,
        output: `${file} is a process's environment, which holds dsh's API key; dsh does not read it`,
      });
    }
  });

  procTest(
    "grep skips /proc/self/pagemap as too large instead of reading it to the end",
    async () => {
      const call = await fx.run("grep", { pattern: "x", path: "/proc/self/pagemap" });
      expect(call.result).toEqual({
        isError: false,
        output: `No matches for /x/ in /proc/${process.pid}/pagemap (0 files searched)\n[skipped 1 file over 2 MiB]`,
        details: { hits: [] },
      });
    },
  );

  test("a huge sparse file is refused by read_file, edit_file and grep without reading it", async () => {
    const file = sparse("huge.bin", 64 * 1024 ** 3);
    fx.box.write("small.txt", "needle\n");
    const read = await fx.run("read_file", { path: "huge.bin" });
    expect(read.result).toEqual({
      isError: true,
      output: `${file} is 65536 MiB, over the 2 MiB limit; use grep to find the part you need, or bash with head/sed`,
    });
    const edit = await fx.run("edit_file", { path: "huge.bin", old_string: "a", new_string: "b" });
    expect(edit.result).toEqual(read.result);
    const grep = await fx.run("grep", { pattern: "needle" });
    expect(grep.result.output).toBe("small.txt:1:needle\n[skipped 1 file over 2 MiB]");
    expect(fs.statSync(file).size).toBe(64 * 1024 ** 3);
  });

  test("a file of exactly 2 MiB is read, one byte more is refused", async () => {
    const limit = 2 * 1024 * 1024;
    fx.box.write("at-limit.txt", `${"a".repeat(limit - 1)}\n`);
    fx.box.write("over-limit.txt", `${"a".repeat(limit)}\n`);
    const at = await fx.run("read_file", { path: "at-limit.txt", limit: 1 });
    expect(at.result.isError).toBe(false);
    const over = await fx.run("read_file", { path: "over-limit.txt" });
    expect(over.result.isError).toBe(true);
    expect(over.result.output).toContain("over the 2 MiB limit");
    expect(path.basename(over.result.output.split(" ")[0] ?? "")).toBe("over-limit.txt");
  });
});
