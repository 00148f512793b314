import { describe, expect, test } from "bun:test";
import { splitArguments } from "../../src/argument-words.ts";
import { customCommandOf, expandCommand } from "../../src/library/custom-command.ts";
import type { MarkdownFile } from "../../src/front-matter/index.ts";

function file(name: string, data: Record<string, unknown>, body: string): MarkdownFile {
  return {
    name,
    path: `/p/.dsh/commands/${name}.md`,
    place: { dir: "/p/.dsh/commands", within: "/p", scope: "project" },
    data,
    body,
    hasFrontMatter: Object.keys(data).length > 0,
  };
}

describe("custom commands", () => {
  test("arguments split at blanks; quotes group words and are removed", () => {
    expect(
      [
        "a b  c",
        `"two words" 'single "quoted"' x`,
        `"a \\"quote\\" and \\\\" end`,
        `it's`,
        `""`,
        "",
      ].map(splitArguments),
    ).toEqual([
      ["a", "b", "c"],
      ["two words", 'single "quoted"', "x"],
      ['a "quote" and \\', "end"],
      ["its"],
      [""],
      [],
    ]);
  });

  test("$ARGUMENTS is the whole text, $1…$9 its words (missing ones empty)", () => {
    const body = "Fix #$1 ($2, $3) then $ARGUMENTS; $10 is $1 then 0\n";
    expect(expandCommand(body, ' 42 "the parser" ')).toBe(
      'Fix #42 (the parser, ) then 42 "the parser"; 420 is 42 then 0',
    );
  });

  test("a body without placeholders gets the arguments after a blank line", () => {
    expect(expandCommand("Review the branch.\n", "")).toBe("Review the branch.");
    expect(expandCommand("Review the branch.\n", "focus on tests")).toBe(
      "Review the branch.\n\nfocus on tests",
    );
  });

  test("the description comes from the front matter, else the body's first line", () => {
    expect(
      customCommandOf(file("review", { description: "Review it", "argument-hint": "PR" }, "x")),
    ).toMatchObject({
      ok: true,
      command: { name: "review", description: "Review it", hint: "PR" },
    });
    expect(
      customCommandOf(file("plain", {}, "\n# Tidy the imports\n\nThen run lint.")),
    ).toMatchObject({
      ok: true,
      command: { name: "plain", description: "Tidy the imports" },
    });
    const reasons = [
      file("has space", {}, "x"),
      file("ok", { description: 3 }, "x"),
      file("empty", {}, "  \n"),
      file("a:b", {}, "x"),
    ].map((f) => {
      const read = customCommandOf(f);
      return read.ok ? "ok" : read.reason;
    });
    expect(reasons).toEqual([
      "its name (the file name without .md) must be letters, digits, '.', '_' or '-', at most 64, starting with a letter or digit",
      "description must be text",
      "its prompt (the body) is empty",
      "its name (the file name without .md) must be letters, digits, '.', '_' or '-', at most 64, starting with a letter or digit",
    ]);
  });
});
