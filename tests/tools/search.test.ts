import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { createFileTools } from "../../src/tools/core-tools.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import type { ToolRegistry } from "../../src/tools/types.ts";
import { makeSandbox, toolContext } from "./harness.ts";
import type { Sandbox } from "./harness.ts";

let box: Sandbox;
let registry: ToolRegistry;
beforeEach(() => {
  box = makeSandbox();
  registry = createToolRegistry(createFileTools({ homeDir: box.home }));
});
afterEach(() => box[Symbol.dispose]());

const run = (tool: string, args: Record<string, unknown>, cwd = box.root) =>
  registry.execute(tool, JSON.stringify(args), toolContext(cwd));

/** Writes a file with a fixed mtime (seconds since the epoch). */
function fileAt(relative: string, content: string, mtime: number): string {
  const file = box.write(relative, content);
  fs.utimesSync(file, mtime, mtime);
  return file;
}

describe("glob", () => {
  test("lists matches newest first, skipping .git and node_modules", async () => {
    fileAt("src/old.ts", "", 1_000);
    fileAt("src/new.ts", "", 3_000);
    fileAt("src/deep/mid.ts", "", 2_000);
    fileAt("src/readme.md", "", 4_000);
    fileAt("node_modules/pkg/index.ts", "", 5_000);
    fileAt(".git/x.ts", "", 5_000);
    const call = await run("glob", { pattern: "**/*.ts" });
    expect(call.result.output).toBe("src/new.ts\nsrc/deep/mid.ts\nsrc/old.ts");
    expect(call.intent).toEqual({
      type: "generic",
      kind: "search",
      title: "Glob **/*.ts",
      text: call.result.output,
      locations: ["src/new.ts", "src/deep/mid.ts", "src/old.ts"].map((p) => ({ path: path.join(box.root, p) })),
    });
  });

  test("searches node_modules when the pattern names it", async () => {
    fileAt("node_modules/pkg/index.ts", "", 5_000);
    const call = await run("glob", { pattern: "node_modules/**/*.ts" });
    expect(call.result.output).toBe("node_modules/pkg/index.ts");
  });

  test("* stays in one directory; path narrows the base", async () => {
    fileAt("top.ts", "", 1_000);
    fileAt("src/a.ts", "", 2_000);
    fileAt("src/sub/b.ts", "", 3_000);
    expect((await run("glob", { pattern: "*.ts" })).result.output).toBe("top.ts");
    expect((await run("glob", { pattern: "*.ts", path: "src" })).result.output).toBe("src/a.ts");
    expect((await run("glob", { pattern: "src/*/*.ts" })).result.output).toBe("src/sub/b.ts");
    expect(registry.presentCall("glob", '{"pattern":"*.ts","path":"src"}', { cwd: box.root })).toEqual({
      type: "generic",
      kind: "search",
      title: "Glob *.ts in src",
    });
  });

  test("lists files outside the workspace by absolute pattern, with absolute paths", async () => {
    fs.writeFileSync(path.join(box.evil, "x.txt"), "");
    const call = await run("glob", { pattern: `${box.evil}/*.txt` });
    expect(call.result.output).toBe(path.join(box.evil, "x.txt"));
  });

  test("caps the list and says how many there are", async () => {
    for (let i = 0; i < 205; i++) fileAt(`many/f${String(i).padStart(3, "0")}.txt`, "", 1_000 + i);
    const lines = (await run("glob", { pattern: "many/*.txt" })).result.output.split("\n");
    expect(lines).toHaveLength(201);
    expect(lines[0]).toBe("many/f204.txt");
    expect(lines[200]).toBe("[200 of 205 matches shown, newest first; narrow the pattern or path for the rest]");
  });

  test("says when nothing matches, and refuses a missing base or a file as base", async () => {
    box.write("file.txt", "");
    expect((await run("glob", { pattern: "*.rs" })).result).toEqual({
      isError: false,
      output: "No files match *.rs in .",
      details: { hits: [] },
    });
    expect((await run("glob", { pattern: "*", path: "nope" })).result.output).toBe(`${path.join(box.root, "nope")} does not exist`);
    expect((await run("glob", { pattern: "*", path: "file.txt" })).result.output).toBe(`${path.join(box.root, "file.txt")} is not a directory`);
    expect((await run("glob", { pattern: "" })).result.output).toBe("pattern is empty");
  });

  test("does not follow a symlinked directory or list credential stores", async () => {
    fs.writeFileSync(path.join(box.evil, "secret.ts"), "");
    fs.symlinkSync(box.evil, path.join(box.root, "out"));
    fs.mkdirSync(path.join(box.home, ".ssh"));
    fs.writeFileSync(path.join(box.home, ".ssh", "id_rsa"), "");
    fs.writeFileSync(path.join(box.home, "notes.txt"), "");
    expect((await run("glob", { pattern: "**/*.ts" })).result.output).toBe("No files match **/*.ts in .");
    expect((await run("glob", { pattern: "**/*", path: box.home })).result.output).toBe(path.join(box.home, "notes.txt"));
  });
});

describe("grep", () => {
  test("prints path:line:text for each match", async () => {
    box.write("src/a.ts", "const a = 1;\n// TODO: one\nconst b = 2;\r\n// todo: two\n");
    box.write("src/b.md", "TODO in markdown\n");
    box.write("node_modules/x/TODO.ts", "TODO hidden\n");
    const call = await run("grep", { pattern: "TODO", glob: "*.ts" });
    expect(call.result.output).toBe("src/a.ts:2:// TODO: one");
    expect(call.intent).toEqual({
      type: "generic",
      kind: "search",
      title: "Grep /TODO/ (*.ts)",
      text: "src/a.ts:2:// TODO: one",
      locations: [{ path: path.join(box.root, "src/a.ts"), line: 2 }],
    });
    const loose = await run("grep", { pattern: "todo:", ignore_case: true, path: "src" });
    expect(loose.result.output).toBe("src/a.ts:2:// TODO: one\nsrc/a.ts:4:// todo: two");
  });

  test("a glob with a slash matches the relative path", async () => {
    box.write("src/a.py", "x = 1\n");
    box.write("lib/a.py", "x = 2\n");
    expect((await run("grep", { pattern: "x =", glob: "src/**/*.py" })).result.output).toBe("src/a.py:1:x = 1");
  });

  test("searches one file, and a file outside the workspace by absolute path", async () => {
    const outside = path.join(box.evil, "log.txt");
    fs.writeFileSync(outside, "ok\nerror: disk\n");
    expect((await run("grep", { pattern: "^error", path: outside })).result.output).toBe(`${outside}:2:error: disk`);
  });

  test("skips binary and oversized files, and says so", async () => {
    box.write("bin.dat", new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x00]));
    box.write("huge.txt", `needle\n${"a".repeat(2 * 1024 * 1024)}`);
    box.write("small.txt", "no match here\n");
    expect((await run("grep", { pattern: "needle" })).result.output).toBe(
      "No matches for /needle/ in . (1 file searched)\n[skipped 1 files over 2 MiB]",
    );
  });

  test("caps matches and cuts long lines", async () => {
    box.write("many.txt", `${"hit ".repeat(200)}\n${"hit\n".repeat(300)}`);
    const lines = (await run("grep", { pattern: "hit" })).result.output.split("\n");
    expect(lines).toHaveLength(201);
    expect(lines[0]).toBe(`many.txt:1:${"hit ".repeat(125)}…`);
    expect(lines[200]).toBe("[stopped at 200 matches; narrow the pattern, path or glob for the rest]");
  });

  test("an invalid regex or an empty pattern is a clear error", async () => {
    expect((await run("grep", { pattern: "(unclosed" })).result).toEqual({
      isError: true,
      output: "invalid regular expression /(unclosed/: missing )",
    });
    expect((await run("grep", { pattern: "" })).result.output).toBe("pattern is empty");
  });

  test("never searches credential stores or follows symlinks", async () => {
    fs.mkdirSync(path.join(box.home, ".aws"));
    fs.writeFileSync(path.join(box.home, ".aws", "credentials"), "secret_key=abc\n");
    fs.writeFileSync(path.join(box.home, "plain.txt"), "secret_key? no\n");
    fs.writeFileSync(path.join(box.evil, "x.txt"), "secret_key=outside\n");
    fs.symlinkSync(path.join(box.evil, "x.txt"), path.join(box.root, "link.txt"));
    expect((await run("grep", { pattern: "secret_key", path: box.home })).result.output).toBe(
      `${path.join(box.home, "plain.txt")}:1:secret_key? no`,
    );
    expect((await run("grep", { pattern: "secret_key" })).result.output).toBe("No matches for /secret_key/ in . (0 files searched)");
    expect((await run("grep", { pattern: "x", path: path.join(box.home, ".aws") })).result.isError).toBe(true);
  });
});
