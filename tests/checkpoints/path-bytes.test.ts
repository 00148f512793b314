import { expect, test } from "bun:test";
import {
  foldersOn,
  pathBytes,
  shownPath,
  underRoot,
  zRecords,
} from "../../src/checkpoints/path-bytes.ts";

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(
    parts.map((part) => (typeof part === "string" ? Buffer.from(part) : Buffer.from(part))),
  );

test("a plain UTF-8 name is shown as it is; any other is quoted with escapes", () => {
  expect(shownPath(bytes("src/naïve é.ts"))).toBe("src/naïve é.ts");
  expect(shownPath(bytes("bad", [0xff], ".txt"))).toBe('"bad\\xff.txt"');
  expect(shownPath(bytes("two\nlines"))).toBe('"two\\nlines"');
  expect(shownPath(bytes('"quoted"'))).toBe('"\\"quoted\\""');
  expect(shownPath(bytes("back\\slash"))).toBe('"back\\\\slash"');
  // A valid character beside a bad byte stays readable; a cut sequence is escaped byte by byte.
  expect(shownPath(bytes("é", [0xc3]))).toBe('"é\\xc3"');
  expect(shownPath(bytes([0x01, 0x7f]))).toBe('"\\x01\\x7f"');
});

test("every name maps back to exactly its bytes, and two names never share a form", () => {
  const names = [
    bytes("plain.txt"),
    bytes("bad", [0xff], ".txt"),
    bytes("bad", [0xfe], ".txt"),
    bytes("bad\\xff.txt"),
    bytes('"bad\\xff.txt"'),
    bytes("two\nlines"),
    bytes("tab\there\r"),
    bytes([0xe2, 0x82]),
    bytes([0xf0, 0x9f, 0x98, 0x80], "x", [0x80]),
    bytes('ends with a quote"'),
    // A byte-order mark is part of a name, first or anywhere: "\ufeff.." is no "..".
    bytes([0xef, 0xbb, 0xbf], ".."),
    bytes([0xef, 0xbb, 0xbf], "../victim"),
    bytes("q", [0x01], "/", [0xef, 0xbb, 0xbf], "../x"),
    bytes(".."),
  ];
  const shown = names.map(shownPath);
  expect(new Set(shown).size).toBe(names.length);
  for (const [i, name] of names.entries()) expect(pathBytes(shown[i] ?? "")).toEqual(name);
});

test("-z output splits into its records, and a path's folders are found as bytes", () => {
  expect(zRecords(bytes("a", [0], "b", [0xff, 0], [0])).map((r) => Buffer.from(r))).toEqual([
    bytes("a"),
    bytes("b", [0xff]),
  ]);
  expect(foldersOn("/r", '"d\\xfc/e/f.txt"')).toEqual([
    bytes("/r/d", [0xfc]),
    bytes("/r/d", [0xfc], "/e"),
  ]);
  expect(foldersOn("/r", "top.txt")).toEqual([]);
});

test("a path with an empty, . or .. part is no path inside the root", () => {
  expect(underRoot("/w", shownPath(bytes([0xef, 0xbb, 0xbf], "../v")))).toEqual(
    bytes("/w/", [0xef, 0xbb, 0xbf], "../v"),
  );
  for (const bad of ["..", "../v", "a/../v", "a/./v", ".", "a//v", "a/"]) {
    expect(() => underRoot("/w", bad)).toThrow("is not a path inside the workspace");
  }
  expect(() => underRoot("/w", shownPath(bytes("q", [0x01], "/../x")))).toThrow();
});
