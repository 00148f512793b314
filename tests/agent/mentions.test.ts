import { expect, test } from "bun:test";
import { MENTION_BUDGET_CHARS, embedMentionedFiles } from "../../src/agent/mentions.ts";
import type { UserContent } from "../../src/session/events.ts";
import { MAX_EMBEDDED_CHARS } from "../../src/file-safety/embedded-text.ts";

const link = (n: number): UserContent => ({
  type: "resource_link",
  uri: `file:///w/${n}.txt`,
  name: `${n}.txt`,
});

test("links are read in order until the prompt's budget is spent; the rest stay named", async () => {
  const read: string[] = [];
  const count = Math.ceil(MENTION_BUDGET_CHARS / MAX_EMBEDDED_CHARS) + 2;
  const content = await embedMentionedFiles(
    [{ type: "text", text: "look" }, ...Array.from({ length: count }, (_, n) => link(n))],
    async (uri) => {
      read.push(uri);
      return "x".repeat(MAX_EMBEDDED_CHARS);
    },
  );
  const whole = MENTION_BUDGET_CHARS / MAX_EMBEDDED_CHARS;
  expect(content.map((block): string => block.type)).toEqual([
    "text",
    ...Array.from({ length: whole }, () => "resource"),
    ...Array.from({ length: count - whole }, () => "resource_link"),
  ]);
  expect(read).toHaveLength(whole);
});

test("a link the reader declines stays a link", async () => {
  expect(await embedMentionedFiles([link(1)], async () => undefined)).toEqual([link(1)]);
});

test("embedded text the screen refuses becomes a link naming it; other text stays", async () => {
  const content = await embedMentionedFiles(
    [
      { type: "resource", uri: "file:///w/notes.md", text: "API_KEY=x", mimeType: "text/markdown" },
      { type: "resource", uri: "file:///w/a.ts", text: "export {}" },
    ],
    async () => undefined,
    (uri) => uri.endsWith("notes.md"),
  );
  expect(content).toEqual([
    {
      type: "resource_link",
      uri: "file:///w/notes.md",
      name: "notes.md",
      mimeType: "text/markdown",
    },
    { type: "resource", uri: "file:///w/a.ts", text: "export {}" },
  ]);
});
