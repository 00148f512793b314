import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { PRESETS } from "../../src/permission/knobs.ts";
import { recordingAnswerer, useFileTools } from "./harness.ts";
import type { ContextOptions } from "./harness.ts";

const fx = useFileTools();

const edit = (args: Record<string, unknown>, options?: ContextOptions) =>
  fx.run("edit_file", args, options);

const SOURCE = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 1;\n}\n";

describe("edit_file", () => {
  test("replaces a unique string and presents the whole file's diff", async () => {
    const file = fx.box.write("src/x.ts", SOURCE);
    const call = await edit({
      path: "src/x.ts",
      old_string: "function b() {\n  return 1;",
      new_string: "function b() {\n  return 2;",
    });
    const after = SOURCE.replace("b() {\n  return 1;", "b() {\n  return 2;");
    expect(call.result.output).toBe("Edited src/x.ts: replaced 1 occurrence (first at line 5)");
    expect(call.intent).toEqual({
      type: "diff",
      title: "Edit src/x.ts",
      path: file,
      oldText: SOURCE,
      newText: after,
      locations: [{ path: file, line: 6 }],
    });
    expect(fx.box.read("src/x.ts")).toBe(after);
  });

  test("replace_all replaces every occurrence", async () => {
    fx.box.write("x.ts", SOURCE);
    const call = await edit({
      path: "x.ts",
      old_string: "return 1;",
      new_string: "return $&;",
      replace_all: true,
    });
    expect(call.result.output).toBe("Edited x.ts: replaced 2 occurrences (first at line 2)");
    expect(fx.box.read("x.ts")).toBe(SOURCE.replaceAll("return 1;", () => "return $&;"));
  });

  test("a string that matches twice is refused with its lines, and the file is unchanged", async () => {
    fx.box.write("x.ts", SOURCE);
    const call = await edit({ path: "x.ts", old_string: "return 1;", new_string: "return 2;" });
    expect(call.result).toEqual({
      isError: true,
      output:
        "old_string matches 2 times in x.ts (at lines 2, 6); include more surrounding lines to make it unique, " +
        "or set replace_all to true to replace every occurrence",
    });
    expect(fx.box.read("x.ts")).toBe(SOURCE);
  });

  test("zero matches hint at whitespace", async () => {
    fx.box.write("x.ts", SOURCE);
    const spaced = await edit({
      path: "x.ts",
      old_string: "function a() {\n    return 1;",
      new_string: "x",
    });
    const absent = await edit({ path: "x.ts", old_string: "function c", new_string: "x" });
    expect(spaced.result.output).toBe(
      "old_string was not found in x.ts. It must match the file exactly, including whitespace, indentation and line breaks. " +
        "A match exists when whitespace is ignored: read the file again and copy the exact text.",
    );
    expect(absent.result.output).toBe(
      "old_string was not found in x.ts. It must match the file exactly, including whitespace, indentation and line breaks; " +
        "read the file again to copy the exact text.",
    );
  });

  test("a CRLF file is matched with LF text and keeps its line endings", async () => {
    fx.box.write("w.txt", "one\r\ntwo\r\nthree\r\n");
    const call = await edit({ path: "w.txt", old_string: "one\ntwo", new_string: "1\n2" });
    expect(call.result.isError).toBe(false);
    expect(fx.box.read("w.txt")).toBe("1\r\n2\r\nthree\r\n");
  });

  test("refuses empty, identical, missing, binary and directory targets", async () => {
    fx.box.write("x.ts", SOURCE);
    fx.box.write("b.bin", new Uint8Array([0, 1, 2]));
    fs.mkdirSync(path.join(fx.box.root, "dir"));
    const outputs = await Promise.all(
      [
        { path: "x.ts", old_string: "", new_string: "x" },
        { path: "x.ts", old_string: "a", new_string: "a" },
        { path: "nope.ts", old_string: "a", new_string: "b" },
        { path: "b.bin", old_string: "a", new_string: "b" },
        { path: "dir", old_string: "a", new_string: "b" },
      ].map(async (args) => (await edit(args)).result.output),
    );
    expect(outputs).toEqual([
      "old_string is empty; use write_file to create or replace a whole file",
      "old_string and new_string are identical; there is nothing to change",
      `${path.join(fx.box.root, "nope.ts")} does not exist; use write_file to create it`,
      `${path.join(fx.box.root, "b.bin")} is a binary file (it has NUL bytes); it cannot be read as text`,
      `${path.join(fx.box.root, "dir")} is a directory`,
    ]);
    expect(fx.box.read("x.ts")).toBe(SOURCE);
  });

  test("read-only asks with the whole-file diff; a deny leaves the file unchanged", async () => {
    const file = fx.box.write("x.ts", SOURCE);
    const answerer = recordingAnswerer("deny");
    const call = await edit(
      { path: "x.ts", old_string: "function a", new_string: "function z" },
      { knobs: PRESETS["read-only"], answerers: [answerer] },
    );
    expect(call.result.output).toBe(
      `writing ${file} was not approved (the session is read-only); nothing was written`,
    );
    expect(answerer.requests.map((request) => [request.kind, request.intent])).toEqual([
      [
        "write",
        {
          type: "diff",
          title: "Edit x.ts",
          path: file,
          oldText: SOURCE,
          newText: SOURCE.replace("function a", "function z"),
          locations: [{ path: file, line: 1 }],
        },
      ],
    ]);
    expect(fx.box.read("x.ts")).toBe(SOURCE);
  });

  test("an edit through a symlink out of the workspace asks and is denied without an answerer", async () => {
    const victim = path.join(fx.box.evil, "v.txt");
    fs.writeFileSync(victim, "keep me");
    fs.symlinkSync(victim, path.join(fx.box.root, "v.txt"));
    const call = await edit({ path: "v.txt", old_string: "keep", new_string: "lose" });
    expect(call.result.output).toStartWith(`writing ${victim} was not approved `);
    expect(fs.readFileSync(victim, "utf8")).toBe("keep me");
  });

  test("announces the call with the file and no guessed diff (the result brings the exact one)", () => {
    const args = JSON.stringify({ path: "x.ts", old_string: "a", new_string: "b" });
    expect(fx.registry.presentCall("edit_file", args, { cwd: fx.box.root })).toEqual({
      type: "generic",
      kind: "edit",
      title: "Edit x.ts",
      locations: [{ path: path.join(fx.box.root, "x.ts") }],
    });
  });
});
