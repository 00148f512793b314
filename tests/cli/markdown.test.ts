import { expect, test } from "bun:test";
import { createMarkdownStream } from "../../src/cli/markdown.ts";

/** Feeds `text` three characters at a time; returns what came out before the end, and at it. */
function stream(text: string): { live: string[]; atEnd: string } {
  const markdown = createMarkdownStream(80);
  const live: string[] = [];
  for (let i = 0; i < text.length; i += 3) {
    const out = markdown.push(text.slice(i, i + 3)).commit;
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

test("the open block is rendered as it stands, for the screen to show and replace", () => {
  const markdown = createMarkdownStream(80);
  expect(Bun.stripANSI(markdown.push("Some **bo", 10).preview)).toBe("Some **bo\n");
  const piece = markdown.push("ld** text", 10);
  expect({ commit: piece.commit, preview: Bun.stripANSI(piece.preview) }).toEqual({
    commit: "",
    preview: "Some bold text\n",
  });
  expect(markdown.push("\n\nNext", 10).commit).toContain("bold");
});

test("an open code block taller than the room gives its first lines to the output, rendered under one fence", () => {
  const markdown = createMarkdownStream(80);
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
  let commit = "";
  let preview = "";
  for (const line of ["```sh", ...lines]) {
    const piece = markdown.push(`${line}\n`, 6);
    commit += piece.commit;
    preview = piece.preview;
    expect(preview.replace(/\n$/, "").split("\n").length).toBeLessThanOrEqual(6);
  }
  commit += markdown.push("```\n").commit + markdown.end();
  const shown = Bun.stripANSI(commit).split("\n");
  // One fence around all 30 lines, each once, in order.
  expect(shown.filter((row) => row.startsWith("┌")).length).toBe(1);
  expect(shown.filter((row) => row.startsWith("└")).length).toBe(1);
  expect(shown.filter((row) => row.startsWith("│")).map((row) => row.slice(2))).toEqual(lines);
});
