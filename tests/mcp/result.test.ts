import { describe, expect, test } from "bun:test";
import { MAX_RESULT_CHARS, resultText } from "../../src/mcp/result.ts";

describe("MCP results as the model reads them", () => {
  test("text, images, audio, resources and links become text", () => {
    expect(
      resultText({
        content: [
          { type: "text", text: "hello" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
          { type: "audio", data: "AAAAAA==", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///a.txt", text: "inside a" } },
          {
            type: "resource",
            resource: { uri: "file:///b.bin", blob: "AAAA", mimeType: "application/x" },
          },
          { type: "resource_link", uri: "file:///c", name: "c" },
        ],
      }),
    ).toEqual({
      isError: false,
      output: [
        "hello",
        "[image: image/png, 3 bytes]",
        "[audio: audio/wav, 4 bytes]",
        "[resource: file:///a.txt]\ninside a",
        "[resource: file:///b.bin, application/x, 3 bytes]",
        "[resource link: c file:///c]",
      ].join("\n"),
    });
  });

  test("structured content is given as JSON when no text mirrors it", () => {
    expect([
      resultText({ content: [], structuredContent: { a: 1 } }),
      resultText({ content: [{ type: "text", text: '{"a":1}' }], structuredContent: { a: 1 } }),
      resultText({ toolResult: [1, 2] }),
    ]).toEqual([
      { isError: false, output: '{\n  "a": 1\n}' },
      { isError: false, output: '{"a":1}' },
      { isError: false, output: "[\n  1,\n  2\n]" },
    ]);
  });

  test("isError carries over, and an empty result still says something", () => {
    expect([
      resultText({ content: [{ type: "text", text: "bad input" }], isError: true }),
      resultText({ content: [], isError: true }),
      resultText({ content: [] }),
    ]).toEqual([
      { isError: true, output: "bad input" },
      { isError: true, output: "the tool failed" },
      { isError: false, output: "(no output)" },
    ]);
  });

  test("a huge result is cut with a note", () => {
    const { output } = resultText({
      content: [{ type: "text", text: "x".repeat(MAX_RESULT_CHARS + 10) }],
    });
    expect(output.endsWith("[… 10 more characters not shown]")).toBe(true);
  });
});
