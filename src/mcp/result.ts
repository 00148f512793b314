/**
 * An MCP tool result as the model reads it: text blocks as they are, structured content as
 * JSON, embedded text resources with their URI, and binary parts (images, audio, blobs) named
 * rather than inlined.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolResult } from "../tools/types.ts";

/** A result longer than this is cut, with a note saying how much was left out. */
export const MAX_RESULT_CHARS = 100_000;

type ContentBlock = CallToolResult["content"][number];

/** The text of a result (the old `toolResult` form too); `isError` carries over. */
export function resultText(result: CallToolResult | { toolResult: unknown }): ToolResult {
  if ("toolResult" in result) return { isError: false, output: bounded(json(result.toolResult)) };
  const parts = (result.content ?? []).map(blockText);
  const hasText = (result.content ?? []).some((block) => block.type === "text");
  // Servers should mirror structured content as text; when one did not, the model gets it here.
  if (result.structuredContent !== undefined && !hasText)
    parts.push(json(result.structuredContent));
  const output = parts.join("\n");
  return {
    isError: result.isError === true,
    output: bounded(
      output === "" ? (result.isError === true ? "the tool failed" : "(no output)") : output,
    ),
  };
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "audio":
      return `[audio: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "resource": {
      const { resource } = block;
      if ("text" in resource) return `[resource: ${resource.uri}]\n${resource.text}`;
      const mime = resource.mimeType === undefined ? "" : `, ${resource.mimeType}`;
      return `[resource: ${resource.uri}${mime}, ${base64Bytes(resource.blob)} bytes]`;
    }
    case "resource_link":
      return `[resource link: ${block.name} ${block.uri}]`;
    default: {
      const unknown: { type: string } = block;
      return `[${unknown.type} content]`;
    }
  }
}

/** The bytes a base64 text decodes to, without decoding it. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "null";
}

function bounded(text: string): string {
  if (text.length <= MAX_RESULT_CHARS) return text;
  const dropped = text.length - MAX_RESULT_CHARS;
  return `${text.slice(0, MAX_RESULT_CHARS)}\n[… ${dropped} more characters not shown]`;
}
