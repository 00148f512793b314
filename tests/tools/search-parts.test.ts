/** The search's parts: one ignore file's patterns, and the literal a regex match must contain. */
import { describe, expect, test } from "bun:test";
import { compileIgnoreFile } from "../../src/tools/search/gitignore.ts";
import { requiredLiteral } from "../../src/tools/search/file-searcher.ts";

describe("compileIgnoreFile (gitignore(5))", () => {
  const rules = compileIgnoreFile(
    [
      "# a comment",
      "target/",
      "/root.txt",
      "*.log",
      "!keep.log",
      "foo/**/bar",
      "a/*.txt",
      "\\#hash",
      "\\!bang",
      "trailing   ",
      "**/deep",
      "x?z",
      "[ab]c",
      "{brace}",
    ].join("\n"),
  );
  const cases: [string, boolean, ReturnType<typeof rules.test>][] = [
    ["target", true, "ignored"],
    ["target", false, undefined],
    ["src/target", true, "ignored"],
    ["root.txt", false, "ignored"],
    ["src/root.txt", false, undefined],
    ["x.log", false, "ignored"],
    ["d/keep.log", false, "unignored"],
    ["foo/bar", false, "ignored"],
    ["foo/1/2/bar", false, "ignored"],
    ["a/b.txt", false, "ignored"],
    ["x/a/b.txt", false, undefined],
    ["#hash", false, "ignored"],
    ["!bang", false, "ignored"],
    ["trailing", false, "ignored"],
    ["p/q/deep", true, "ignored"],
    ["xyz", false, "ignored"],
    ["x/z", false, undefined],
    ["ac", false, "ignored"],
    ["cc", false, undefined],
    ["{brace}", false, "ignored"],
    ["brace", false, undefined],
    ["# a comment", false, undefined],
  ];
  for (const [path, isDirectory, verdict] of cases) {
    test(`${path}${isDirectory ? "/" : ""}: ${verdict ?? "no rule"}`, () => {
      expect(rules.test(path, isDirectory)).toBe(verdict);
    });
  }
});

describe("requiredLiteral", () => {
  const cases: [RegExp, string | undefined][] = [
    [/export function/, "export function"],
    [/zq_never_[0-9]{4}/, "zq_never_"],
    [/function\s+load/, "function"],
    [/foo\.bar/, "foo.bar"],
    [/colou?r_name/, "r_name"],
    [/a|b/, undefined],
    [/(optional)?xy/, undefined],
    [/TODO/i, undefined],
    [/ab/, undefined],
    [/^\s*import .* from$/, "import "],
  ];
  for (const [regex, literal] of cases) {
    test(`${regex}: ${literal === undefined ? "none" : JSON.stringify(literal)}`, () => {
      expect(requiredLiteral(regex)).toBe(literal);
    });
  }
});
