/**
 * One tool result may not flood the context: whatever the tool (built-in or from an MCP
 * server), the text the model reads is held to a token budget. Past it, the head and the tail
 * are kept (a file's start, a command's last lines, where errors usually are) around a note
 * that says how much was left out and how to ask for it.
 */
import { bytesForTokens, estimateTokens } from "../llm/tokens.ts";
import type { ToolResult } from "../tools/types.ts";

/** Estimated tokens one tool result may add to the context. */
export const TOOL_OUTPUT_TOKENS = 10_000;

/** Share of the budget kept from the start; the rest comes from the end. */
const HEAD_SHARE = 0.6;

const encoder = new TextEncoder();

/** The result with its output held to `maxTokens` (estimated); unchanged when it fits. */
export function budgetToolOutput(result: ToolResult, maxTokens = TOOL_OUTPUT_TOKENS): ToolResult {
  const { output } = result;
  if (estimateTokens(output) <= maxTokens) return result;
  const budget = bytesForTokens(maxTokens);
  const head = snapHeadToLine(leadingWithin(output, Math.floor(budget * HEAD_SHARE)));
  const tailStart = snapTailToLine(output, trailingStart(output, budget - byteLength(head)));
  const omitted = output.slice(head.length, tailStart);
  const note = omissionNote(omitted, maxTokens);
  const lineBreak = head === "" || head.endsWith("\n") ? "" : "\n";
  return { ...result, output: `${head}${lineBreak}${note}${output.slice(tailStart)}` };
}

function omissionNote(omitted: string, maxTokens: number): string {
  const lines = omitted.split("\n").length - 1;
  const size =
    lines > 0
      ? `${lines.toLocaleString("en-US")} lines, about ${estimateTokens(omitted).toLocaleString("en-US")} tokens`
      : `about ${estimateTokens(omitted).toLocaleString("en-US")} tokens`;
  return (
    `[… ${size} left out here: one tool result is limited to about ` +
    `${maxTokens.toLocaleString("en-US")} tokens. To see the rest, ask for less at once: ` +
    "read_file with offset and limit, a narrower grep pattern, path or glob, or a command " +
    "that filters its output (head, tail, grep, sed -n) or writes it to a file to read in parts.]\n"
  );
}

function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** The longest prefix of `text` within `bytes` UTF-8 bytes, never splitting a character. */
function leadingWithin(text: string, bytes: number): string {
  const buffer = new Uint8Array(Math.max(0, bytes));
  const { read } = encoder.encodeInto(text, buffer);
  return text.slice(0, read);
}

/** The index where the longest suffix of `text` within `bytes` UTF-8 bytes starts. */
function trailingStart(text: string, bytes: number): number {
  let used = 0;
  let index = text.length;
  while (index > 0) {
    const code = text.charCodeAt(index - 1);
    const isLowSurrogate = code >= 0xdc00 && code <= 0xdfff;
    const width = isLowSurrogate ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    const units = isLowSurrogate && index >= 2 ? 2 : 1;
    if (used + width > bytes) break;
    used += width;
    index -= units;
  }
  return index;
}

/** Ends the head after its last full line, when that keeps at least half of it. */
function snapHeadToLine(head: string): string {
  const newline = head.lastIndexOf("\n");
  return newline >= head.length / 2 ? head.slice(0, newline + 1) : head;
}

/** Starts the tail at its first full line, when that keeps at least half of it. */
function snapTailToLine(text: string, start: number): number {
  if (start === 0 || text[start - 1] === "\n") return start;
  const newline = text.indexOf("\n", start);
  return newline !== -1 && newline - start <= (text.length - start) / 2 ? newline + 1 : start;
}
