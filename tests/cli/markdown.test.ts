import { expect, test } from "bun:test";
import { createMarkdownStream } from "../../src/cli/markdown.ts";

/** Feeds `text` three characters at a time; returns what came out before the end, and at it. */
function stream(text: string): { live: string[]; atEnd: string } {
  const markdown = createMarkdownStream(80);
  const live: string[] = [];
  for (let i = 0; i < text.length; i += 3) {
    const out = markdown.push(text.slice(i, i + 3));
    if (out !== "") live.push(Bun.stripANSI(out));
  }
  return { live, atEnd: Bun.stripANSI(markdown.end()) };
}

test("blocks are rendered as they complete; a blank line inside a code fence does not end it", () => {
  const { live, atEnd } = stream(
    "# Plan\n\nFirst **do** this.\n\n```sh\nnpm test\n\nnpm run build\n```\n\n- one\n- two",
  );
  expect(live).toHaveLength(3);
  expect(live[0]).toContain("Plan");
  expect(live[0]).not.toContain("#");
  expect(live[1]).toContain("First do this.");
  expect(live[2]).toContain("npm test");
  expect(live[2]).toContain("npm run build");
  expect(atEnd).toContain("one");
  expect(atEnd).toContain("two");
});

test("escape sequences in the Markdown are removed before it is rendered", () => {
  const { atEnd } = stream("see \u001b]52;c;aGk=\u0007this\u001b[2J");
  const raw = createMarkdownStream(80);
  raw.push("see \u001b]52;c;aGk=\u0007this\u001b[2J");
  const rendered = raw.end();
  expect(rendered).not.toContain("\u001b]");
  expect(rendered).not.toContain("\u001b[2J");
  expect(atEnd).toBe("see this\n");
});
