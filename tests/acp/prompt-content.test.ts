import { describe, expect, test } from "bun:test";
import type * as acp from "@agentclientprotocol/sdk";
import { MAX_IMAGE_BYTES } from "../../src/acp/image-content.ts";
import { MAX_EMBEDDED_CHARS, userContentOf } from "../../src/acp/prompt-content.ts";
import { InvalidInputError } from "../../src/errors.ts";

/** The first 18 bytes of a PNG file as base64 (no padding, so more data can follow). */
export const PNG = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 1,
]).toString("base64");

function refusal(prompt: acp.ContentBlock[]): string {
  try {
    userContentOf(prompt);
  } catch (error) {
    if (error instanceof InvalidInputError) return error.message;
    throw error;
  }
  throw new Error("expected the prompt to be refused");
}

describe("embedded resources", () => {
  test("a text resource keeps its uri and text; a long one is cut like a read, saying so", () => {
    const long = "y".repeat(MAX_EMBEDDED_CHARS + 5);
    const content = userContentOf([
      {
        type: "resource",
        resource: { uri: "file:///w/a.ts", text: "const a = 1;", mimeType: "text/x-typescript" },
      },
      { type: "resource", resource: { uri: "file:///w/big.txt", text: long } },
    ]);
    expect(content).toEqual([
      {
        type: "resource",
        uri: "file:///w/a.ts",
        text: "const a = 1;",
        mimeType: "text/x-typescript",
      },
      {
        type: "resource",
        uri: "file:///w/big.txt",
        text: `${"y".repeat(MAX_EMBEDDED_CHARS)}\n[cut: 5 more characters of file:///w/big.txt; read the rest with read_file]`,
      },
    ]);
  });

  test("a blob resource is named, not inlined", () => {
    const content = userContentOf([
      {
        type: "resource",
        resource: {
          uri: "file:///w/logo%20big.bin",
          blob: "AAAA",
          mimeType: "application/octet-stream",
        },
      },
    ]);
    expect(content).toEqual([
      {
        type: "resource_link",
        uri: "file:///w/logo%20big.bin",
        name: "logo big.bin",
        mimeType: "application/octet-stream",
      },
    ]);
  });
});

describe("images", () => {
  test("a PNG is kept as it came; line-wrapped base64 and an upper-case type are the same image", () => {
    const wrapped = `${PNG.slice(0, 12)}\r\n${PNG.slice(12)}\n`;
    expect(
      userContentOf([
        { type: "image", data: PNG, mimeType: "image/png" },
        { type: "image", data: wrapped, mimeType: "IMAGE/PNG" },
      ]),
    ).toEqual([
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ]);
  });

  test("an unsupported type, data that is not base64 or not the type, or too many bytes are refused", () => {
    const tooBig = PNG + "A".repeat(Math.ceil((MAX_IMAGE_BYTES * 4) / 3 / 4) * 4);
    expect([
      refusal([{ type: "image", data: PNG, mimeType: "image/svg+xml" }]),
      refusal([{ type: "image", data: "not base64!", mimeType: "image/png" }]),
      refusal([
        { type: "image", data: Buffer.from("GIF89a..").toString("base64"), mimeType: "image/png" },
      ]),
      refusal([{ type: "image", data: tooBig, mimeType: "image/png" }]),
    ]).toEqual([
      'image type "image/svg+xml" is not supported (image/png, image/jpeg, image/gif, image/webp)',
      "the image data is not base64",
      "the image data is not image/png",
      `the image is ${(tooBig.length / 4) * 3} bytes; at most ${MAX_IMAGE_BYTES} are accepted`,
    ]);
  });
});
