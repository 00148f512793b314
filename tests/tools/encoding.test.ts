import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { useFileTools } from "./harness.ts";

const fx = useFileTools();

/** "café\n" in Latin-1: 0xE9 alone is not UTF-8. */
const LATIN1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const withBom = (text: string) => Buffer.concat([BOM, Buffer.from(text)]);

const bytesOf = (relative: string) => fs.readFileSync(path.join(fx.box.root, relative));

describe("files that are not UTF-8", () => {
  test("edit_file and write_file refuse them and leave every byte as it was", async () => {
    const file = fx.box.write("latin1.txt", LATIN1);
    const edit = await fx.run("edit_file", {
      path: "latin1.txt",
      old_string: "caf",
      new_string: "bar",
    });
    const write = await fx.run("write_file", { path: "latin1.txt", content: "caf\uFFFD\n" });
    const refusal = {
      isError: true,
      output: `${file} is not UTF-8 text; edit it another way (dsh's file tools would change its other bytes)`,
    };
    expect(edit.result).toEqual(refusal);
    expect(write.result).toEqual(refusal);
    expect(bytesOf("latin1.txt")).toEqual(LATIN1);
  });

  test("read_file shows them with replacement characters and says they are not UTF-8", async () => {
    const file = fx.box.write("latin1.txt", LATIN1);
    expect((await fx.run("read_file", { path: "latin1.txt" })).result.output).toBe(
      `     1\tcaf\uFFFD\n[${file} is not valid UTF-8: bytes that are not are shown as \uFFFD; edit_file and write_file refuse it]`,
    );
  });
});

describe("a UTF-8 byte order mark", () => {
  test("edit_file keeps it, and old_string matches the text right after it", async () => {
    fx.box.write("bom.txt", withBom("hello world\nsecond\n"));
    const call = await fx.run("edit_file", {
      path: "bom.txt",
      old_string: "hello",
      new_string: "bye",
    });
    expect(call.result.output).toBe("Edited bom.txt: replaced 1 occurrence (first at line 1)");
    expect(bytesOf("bom.txt")).toEqual(withBom("bye world\nsecond\n"));
  });

  test("write_file over a file with one keeps it, without doubling it", async () => {
    fx.box.write("a.txt", withBom("old\n"));
    fx.box.write("b.txt", withBom("old\n"));
    await fx.run("write_file", { path: "a.txt", content: "new\n" });
    await fx.run("write_file", { path: "b.txt", content: "\uFEFFnew\n" });
    expect(bytesOf("a.txt")).toEqual(withBom("new\n"));
    expect(bytesOf("b.txt")).toEqual(withBom("new\n"));
  });

  test("write_file creates a file without one, and read_file does not show it", async () => {
    await fx.run("write_file", { path: "plain.txt", content: "x\n" });
    expect(bytesOf("plain.txt")).toEqual(Buffer.from("x\n"));
    fx.box.write("bom.txt", withBom("first\n"));
    expect((await fx.run("read_file", { path: "bom.txt" })).result.output).toBe("     1\tfirst");
  });
});
