import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { toolContext, useFileTools } from "./harness.ts";

const fx = useFileTools();

const run = (tool: string, args: Record<string, unknown>) => fx.run(tool, args);

/** Writes a file with a fixed mtime (seconds since the epoch). */
function fileAt(relative: string, content: string, mtime: number): string {
  const file = fx.box.write(relative, content);
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
      summary: "3 files",
      locations: ["src/new.ts", "src/deep/mid.ts", "src/old.ts"].map((p) => ({
        path: path.join(fx.box.root, p),
      })),
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
    expect(
      fx.registry.presentCall("glob", '{"pattern":"*.ts","path":"src"}', { cwd: fx.box.root }),
    ).toEqual({
      type: "generic",
      kind: "search",
      title: "Glob *.ts in src",
    });
  });

  test("lists files outside the workspace by absolute pattern, with absolute paths", async () => {
    fs.writeFileSync(path.join(fx.box.evil, "x.txt"), "");
    const call = await run("glob", { pattern: `${fx.box.evil}/*.txt` });
    expect(call.result.output).toBe(path.join(fx.box.evil, "x.txt"));
  });

  test("caps the list and says how many there are", async () => {
    for (let i = 0; i < 205; i++) fileAt(`many/f${String(i).padStart(3, "0")}.txt`, "", 1_000 + i);
    const lines = (await run("glob", { pattern: "many/*.txt" })).result.output.split("\n");
    expect(lines).toHaveLength(201);
    expect(lines[0]).toBe("many/f204.txt");
    expect(lines[200]).toBe(
      "[200 of 205 matches shown, newest first; narrow the pattern or path for the rest]",
    );
  });

  test("orders a list too large for one batch of times newest first, as the files' times say", async () => {
    // 1,300 matches: their times are read on another thread while the walk goes on.
    const mtimes = Array.from({ length: 1_300 }, (_, i) => 5_000 + ((i * 7919) % 1_300));
    for (const [i, mtime] of mtimes.entries()) fileAt(`big/d${i % 13}/f${i}.txt`, "", mtime);
    const lines = (await run("glob", { pattern: "big/**/*.txt" })).result.output.split("\n");
    const newest = [...mtimes.keys()].sort((a, b) => (mtimes[b] ?? 0) - (mtimes[a] ?? 0));
    expect(lines.slice(0, 200)).toEqual(
      newest.slice(0, 200).map((i) => `big/d${i % 13}/f${i}.txt`),
    );
    expect(lines[200]).toBe(
      "[200 of 1300 matches shown, newest first; narrow the pattern or path for the rest]",
    );
  });

  test("says when nothing matches, and refuses a missing base or a file as base", async () => {
    fx.box.write("file.txt", "");
    expect((await run("glob", { pattern: "*.rs" })).result).toEqual({
      isError: false,
      output: "No files match *.rs in .",
      details: { hits: [], total: 0 },
    });
    expect((await run("glob", { pattern: "*", path: "nope" })).result.output).toBe(
      `${path.join(fx.box.root, "nope")} does not exist`,
    );
    expect((await run("glob", { pattern: "*", path: "file.txt" })).result.output).toBe(
      `${path.join(fx.box.root, "file.txt")} is not a directory`,
    );
    expect((await run("glob", { pattern: "" })).result.output).toBe("pattern is empty");
  });

  test("does not follow a symlinked directory or list credential stores", async () => {
    fs.writeFileSync(path.join(fx.box.evil, "secret.ts"), "");
    fs.symlinkSync(fx.box.evil, path.join(fx.box.root, "out"));
    fs.mkdirSync(path.join(fx.box.home, ".ssh"));
    fs.writeFileSync(path.join(fx.box.home, ".ssh", "id_rsa"), "");
    fs.writeFileSync(path.join(fx.box.home, "notes.txt"), "");
    expect((await run("glob", { pattern: "**/*.ts" })).result.output).toBe(
      "No files match **/*.ts in .",
    );
    expect((await run("glob", { pattern: "**/*", path: fx.box.home })).result.output).toBe(
      path.join(fx.box.home, "notes.txt"),
    );
  });
});

describe("grep", () => {
  test("prints path:line:text for each match", async () => {
    fx.box.write("src/a.ts", "const a = 1;\n// TODO: one\nconst b = 2;\r\n// todo: two\n");
    fx.box.write("src/b.md", "TODO in markdown\n");
    fx.box.write("node_modules/x/TODO.ts", "TODO hidden\n");
    const call = await run("grep", { pattern: "TODO", glob: "*.ts" });
    expect(call.result.output).toBe("src/a.ts:2:// TODO: one");
    expect(call.intent).toEqual({
      type: "generic",
      kind: "search",
      title: "Grep /TODO/ (*.ts)",
      text: "src/a.ts:2:// TODO: one",
      summary: "1 match in 1 file",
      locations: [{ path: path.join(fx.box.root, "src/a.ts"), line: 2 }],
    });
    expect((await run("grep", { pattern: "^$", path: "src/a.ts" })).result.output).toBe(
      "No matches for /^$/ in src/a.ts (1 file searched)",
    );
    const loose = await run("grep", { pattern: "todo:", ignore_case: true, path: "src" });
    expect(loose.result.output).toBe("src/a.ts:2:// TODO: one\nsrc/a.ts:4:// todo: two");
  });

  test("a glob with a slash matches the relative path", async () => {
    fx.box.write("src/a.py", "x = 1\n");
    fx.box.write("lib/a.py", "x = 2\n");
    expect((await run("grep", { pattern: "x =", glob: "src/**/*.py" })).result.output).toBe(
      "src/a.py:1:x = 1",
    );
  });

  test("searches one file, and a file outside the workspace by absolute path", async () => {
    const outside = path.join(fx.box.evil, "log.txt");
    fs.writeFileSync(outside, "ok\nerror: disk\n");
    expect((await run("grep", { pattern: "^error", path: outside })).result.output).toBe(
      `${outside}:2:error: disk`,
    );
  });

  test("skips binary and oversized files, and says so", async () => {
    fx.box.write("bin.dat", new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x00]));
    fx.box.write("huge.txt", `needle\n${"a".repeat(2 * 1024 * 1024)}`);
    fx.box.write("small.txt", "no match here\n");
    expect((await run("grep", { pattern: "needle" })).result.output).toBe(
      "No matches for /needle/ in . (1 file searched)\n[skipped 1 file over 2 MiB]",
    );
  });

  test("caps matches and cuts long lines", async () => {
    fx.box.write("many.txt", `${"hit ".repeat(200)}\n${"hit\n".repeat(300)}`);
    const lines = (await run("grep", { pattern: "hit" })).result.output.split("\n");
    expect(lines).toHaveLength(201);
    expect(lines[0]).toBe(`many.txt:1:${"hit ".repeat(125)}…`);
    expect(lines[200]).toBe(
      "[stopped at 200 matches; narrow the pattern, path or glob for the rest]",
    );
  });

  test("an invalid regex or an empty pattern is a clear error", async () => {
    expect((await run("grep", { pattern: "(unclosed" })).result).toEqual({
      isError: true,
      output: "invalid regular expression /(unclosed/: missing )",
    });
    expect((await run("grep", { pattern: "" })).result.output).toBe("pattern is empty");
  });

  test("a cancel during the walk ends it as cancelled", async () => {
    for (let i = 0; i < 50; i++) fx.box.write(`d${i}/f.txt`, "needle\n");
    const controller = new AbortController();
    const pending = fx.registry.execute(
      "grep",
      '{"pattern":"needle"}',
      toolContext(fx.box.root, { signal: controller.signal }),
    );
    controller.abort();
    expect((await pending).result).toEqual({ isError: true, output: "cancelled" });
  });

  test("never searches credential stores or follows symlinks", async () => {
    fs.mkdirSync(path.join(fx.box.home, ".aws"));
    fs.writeFileSync(path.join(fx.box.home, ".aws", "credentials"), "secret_key=abc\n");
    fs.writeFileSync(path.join(fx.box.home, "plain.txt"), "secret_key? no\n");
    fs.writeFileSync(path.join(fx.box.evil, "x.txt"), "secret_key=outside\n");
    fs.symlinkSync(path.join(fx.box.evil, "x.txt"), path.join(fx.box.root, "link.txt"));
    expect((await run("grep", { pattern: "secret_key", path: fx.box.home })).result.output).toBe(
      `${path.join(fx.box.home, "plain.txt")}:1:secret_key? no`,
    );
    expect((await run("grep", { pattern: "secret_key" })).result.output).toBe(
      "No matches for /secret_key/ in . (0 files searched)",
    );
    expect(
      (await run("grep", { pattern: "x", path: path.join(fx.box.home, ".aws") })).result.isError,
    ).toBe(true);
  });
});
