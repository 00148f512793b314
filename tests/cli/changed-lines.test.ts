import { expect, test } from "bun:test";
import { changedLines } from "../../src/cli/changed-lines.ts";

test("an edit shows only the changed block under its first line number", () => {
  expect(changedLines("a\nb\nc\nd\n", "a\nB\nB2\nd\n")).toEqual([
    "@@ line 2",
    "- b",
    "- c",
    "+ B",
    "+ B2",
  ]);
});

test("a new file is all additions; a final newline adds no empty line", () => {
  expect(changedLines(null, "x\ny\n")).toEqual(["@@ new file", "+ x", "+ y"]);
});

test("a long change is cut with a count of what is left", () => {
  const lines = changedLines("", Array.from({ length: 20 }, (_, i) => `l${i}`).join("\n"));
  expect(lines.length).toBe(1 + 1 + 12 + 1);
  expect(lines.at(-1)).toBe("  … 8 more lines");
});
