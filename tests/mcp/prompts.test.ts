import { describe, expect, test } from "bun:test";
import {
  type McpPrompt,
  promptArguments,
  promptContent,
  promptUsage,
} from "../../src/mcp/prompts.ts";

const review: McpPrompt = {
  name: "review",
  arguments: [
    { name: "language", required: true },
    { name: "focus", required: false },
    { name: "style", required: false },
  ],
};

describe("MCP prompts as commands", () => {
  test("arguments by position in declared order, by name=value, the last taking the rest", () => {
    expect(promptUsage(review)).toBe("<language> [focus] [style]");
    expect(
      [
        "go",
        "go naming",
        "go naming tabs and spaces",
        "style=terse go",
        "focus=x=y rust",
        '"objective c" "error handling"',
        "language=go language=c",
      ].map((text) => promptArguments("srv:review", review, text)),
    ).toEqual([
      { language: "go" },
      { language: "go", focus: "naming" },
      { language: "go", focus: "naming", style: "tabs and spaces" },
      { style: "terse", language: "go" },
      { focus: "x=y", language: "rust" },
      { language: "objective c", focus: "error handling" },
      { language: "go", focus: "language=c" },
    ]);
  });

  test("a missing required argument or words for a prompt without arguments are refused", () => {
    expect(() => promptArguments("srv:review", review, "focus=naming")).toThrow(
      "/srv:review needs language (usage: /srv:review <language> [focus] [style])",
    );
    const hello: McpPrompt = { name: "hello", arguments: [] };
    expect(promptArguments("srv:hello", hello, "")).toEqual({});
    expect(() => promptArguments("srv:hello", hello, "extra")).toThrow(
      "/srv:hello takes no more arguments (usage: /srv:hello)",
    );
  });

  test("a prompts/get result becomes the turn's content, binary parts named", () => {
    expect(
      promptContent({
        messages: [
          { role: "user", content: { type: "text", text: "Review this." } },
          {
            role: "user",
            content: {
              type: "resource",
              resource: { uri: "file:///a.ts", text: "code", mimeType: "text/x-ts" },
            },
          },
          {
            role: "user",
            content: { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAA" } },
          },
          { role: "assistant", content: { type: "image", data: "AAAA", mimeType: "image/png" } },
          { role: "user", content: { type: "audio", data: "AAAA", mimeType: "audio/wav" } },
          { role: "user", content: { type: "resource_link", uri: "file:///c.md", name: "c.md" } },
        ],
      }),
    ).toEqual([
      { type: "text", text: "Review this." },
      { type: "resource", uri: "file:///a.ts", text: "code", mimeType: "text/x-ts" },
      { type: "text", text: "[resource: file:///b.bin, 3 bytes, not included]" },
      { type: "image", mimeType: "image/png", data: "AAAA" },
      { type: "text", text: "[audio: audio/wav, 3 bytes, not included]" },
      { type: "resource_link", uri: "file:///c.md", name: "c.md" },
    ]);
  });
});
