import { describe, expect, test } from "bun:test";
import { parseFrontMatter } from "../../src/front-matter/index.ts";

describe("front matter", () => {
  test.concurrent("a block between --- lines is read as YAML; the rest is the body", async () => {
    expect(
      await parseFrontMatter(
        "---\nname: pdf\ndescription: >\n  Fill PDF\n  forms.\nmetadata:\n  version: '1.0'\n---\n# Body\n\ntext\n",
      ),
    ).toEqual({
      ok: true,
      data: { name: "pdf", description: "Fill PDF forms.\n", metadata: { version: "1.0" } },
      body: "# Body\n\ntext\n",
      present: true,
    });
  });

  test.concurrent("no opening --- line: no front matter, the whole file is the body", async () => {
    expect(await parseFrontMatter("Review $ARGUMENTS\n---\nname: x\n---\n")).toEqual({
      ok: true,
      data: {},
      body: "Review $ARGUMENTS\n---\nname: x\n---\n",
      present: false,
    });
  });

  test.concurrent("a byte-order mark, CRLF lines, an empty block and a ... end are all fine", async () => {
    expect(await parseFrontMatter("\uFEFF---\r\nname: a\r\n---\r\nbody\r\n")).toEqual({
      ok: true,
      data: { name: "a" },
      body: "body\r\n",
      present: true,
    });
    expect(await parseFrontMatter("---\n---\nbody")).toEqual({
      ok: true,
      data: {},
      body: "body",
      present: true,
    });
    expect(await parseFrontMatter("---\nname: a\n...\nbody")).toMatchObject({
      ok: true,
      data: { name: "a" },
      body: "body",
    });
  });

  test.concurrent("each malformed front matter is a reason naming the file's line", async () => {
    const reasons = await Promise.all(
      [
        "---\nname: a\n",
        "---\nname: a\ndescription: Use when: things break\n---\n",
        "---\nname: a\nname: b\n---\n",
        "---\n- a\n- b\n---\n",
        "---\njust text\n---\n",
      ].map(async (text) => {
        const parsed = await parseFrontMatter(text);
        return parsed.ok ? "ok" : parsed.reason;
      }),
    );
    expect(reasons).toEqual([
      "the front matter has no closing --- line",
      "the front matter is not valid YAML (line 3, column 14): Nested mappings are not allowed in compact mappings",
      "the front matter is not valid YAML (line 3, column 1): Map keys must be unique",
      "the front matter is not a mapping of keys to values",
      "the front matter is not a mapping of keys to values",
    ]);
  });

  test.concurrent("an alias bomb is refused, not expanded", async () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(", ")}]`);
    }
    const parsed = await parseFrontMatter(`---\n${levels.join("\n")}\n---\n`);
    expect(parsed.ok ? "expanded" : parsed.reason).toContain("not valid YAML");
  });
});
