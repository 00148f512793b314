import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { useFileTools } from "./harness.ts";
import type { ContextOptions } from "./harness.ts";

const fx = useFileTools();

const read = (args: Record<string, unknown>, options?: ContextOptions) =>
  fx.run("read_file", args, options);

describe("read_file", () => {
  test("returns numbered lines of a relative path", async () => {
    fx.box.write("src/a.txt", "alpha\nbeta\r\n\ngamma\n");
    const call = await read({ path: "src/a.txt" });
    expect(call.result.output).toBe("     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma");
    expect(call.intent).toEqual({
      type: "generic",
      kind: "read",
      title: "Read src/a.txt",
      locations: [{ path: path.join(fx.box.root, "src/a.txt"), line: 1 }],
    });
  });

  test("reads a window with offset and limit and says how to continue", async () => {
    fx.box.write("n.txt", Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n"));
    const call = await read({ path: "n.txt", offset: 3, limit: 2 });
    expect(call.result.output).toBe(
      "     3\tline 3\n     4\tline 4\n[lines 3-4 of 10; read more with offset=5]",
    );
    expect(
      fx.registry.presentCall("read_file", '{"path":"n.txt","offset":3,"limit":2}', {
        cwd: fx.box.root,
      }),
    ).toEqual({
      type: "generic",
      kind: "read",
      title: "Read n.txt (lines 3-4)",
      locations: [{ path: path.join(fx.box.root, "n.txt"), line: 3 }],
    });
  });

  test("stops at 2000 lines by default and cuts very long lines", async () => {
    const lines = Array.from({ length: 2500 }, (_, i) =>
      i === 0 ? "x".repeat(2500) : `l${i + 1}`,
    );
    fx.box.write("big.txt", lines.join("\n"));
    const output = (await read({ path: "big.txt" })).result.output.split("\n");
    expect(output).toHaveLength(2001);
    expect(output[0]).toBe(`     1\t${"x".repeat(2000)}… [line cut: 500 more characters]`);
    expect(output[1999]).toBe("  2000\tl2000");
    expect(output[2000]).toBe("[lines 1-2000 of 2500; read more with offset=2001]");
  });

  test("reads an absolute path outside the workspace", async () => {
    const outside = path.join(fx.box.evil, "notes.md");
    fs.writeFileSync(outside, "hello\n");
    expect((await read({ path: outside })).result).toEqual({
      isError: false,
      output: "     1\thello",
      details: { path: outside, firstLine: 1, lastLine: 1, totalLines: 1 },
    });
  });

  test("an empty file says so", async () => {
    fx.box.write("empty", "");
    expect((await read({ path: "empty" })).result.output).toBe("(empty file)");
  });

  test("refuses what it cannot read as text", async () => {
    fx.box.write("bin.dat", new Uint8Array([0x50, 0x4b, 0x00, 0x01]));
    fx.box.write("huge.txt", "a".repeat(2 * 1024 * 1024 + 1));
    fx.box.write("short.txt", "one\n");
    fs.mkdirSync(path.join(fx.box.root, "dir"));
    const outputs = await Promise.all(
      [
        { path: "missing.txt" },
        { path: "dir" },
        { path: "bin.dat" },
        { path: "huge.txt" },
        { path: "short.txt", offset: 5 },
      ].map(async (args) => (await read(args)).result),
    );
    expect(outputs).toEqual([
      { isError: true, output: `${path.join(fx.box.root, "missing.txt")} does not exist` },
      {
        isError: true,
        output: `${path.join(fx.box.root, "dir")} is a directory; use glob to list its files`,
      },
      {
        isError: true,
        output: `${path.join(fx.box.root, "bin.dat")} is a binary file (it has NUL bytes); it cannot be read as text`,
      },
      {
        isError: true,
        output: `${path.join(fx.box.root, "huge.txt")} is 2 MiB, over the 2 MiB limit; use grep to find the part you need, or bash with head/sed`,
      },
      {
        isError: true,
        output: `offset 5 is past the end of ${path.join(fx.box.root, "short.txt")}, which has 1 line`,
      },
    ]);
  });

  test("refuses credential stores under home, also through a symlink", async () => {
    fs.mkdirSync(path.join(fx.box.home, ".ssh"));
    fs.writeFileSync(path.join(fx.box.home, ".ssh", "id_ed25519"), "PRIVATE");
    fs.writeFileSync(path.join(fx.box.home, ".netrc"), "machine x password y");
    fs.symlinkSync(path.join(fx.box.home, ".ssh", "id_ed25519"), path.join(fx.box.root, "key"));
    const results = await Promise.all(
      [path.join(fx.box.home, ".ssh", "id_ed25519"), path.join(fx.box.home, ".netrc"), "key"].map(
        async (p) => (await read({ path: p })).result,
      ),
    );
    expect(results.map((result) => result.isError)).toEqual([true, true, true]);
    expect(results.map((result) => result.output.includes("holds credentials"))).toEqual([
      true,
      true,
      true,
    ]);
    expect(JSON.stringify(results)).not.toContain("PRIVATE");
  });

  test("refuses empty, NUL-bearing and over-long paths without crashing", async () => {
    const outputs = await Promise.all(
      ["", "a\0b", "a/".repeat(3000), `${"x".repeat(300)}/y`].map(
        async (p) => (await read({ path: p })).result.output,
      ),
    );
    expect(outputs).toEqual([
      "path is empty",
      "path contains a NUL byte",
      "path is longer than 4096 characters",
      "path has a component that is too long",
    ]);
  });
});
