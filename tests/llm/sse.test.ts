import { describe, expect, test } from "bun:test";
import { createSseDecoder, type SseMessage } from "../../src/llm/sse.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** Feeds `input` cut at every given byte offset and returns all events. */
function decodeInPieces(input: Uint8Array, cuts: readonly number[]): SseMessage[] {
  const decoder = createSseDecoder();
  const out: SseMessage[] = [];
  let from = 0;
  for (const cut of [...cuts, input.length]) {
    out.push(...decoder.push(input.slice(from, cut)));
    from = cut;
  }
  out.push(...decoder.end());
  return out;
}

describe("SSE decoder", () => {
  test("a multibyte character split across reads survives", () => {
    const input = bytes('data: {"t":"é漢🙂"}\n\n');
    const events = [];
    // Cut at every byte offset: each position splits some character or line somewhere.
    for (let cut = 1; cut < input.length; cut += 1) events.push(decodeInPieces(input, [cut]));
    expect(new Set(events.map((e) => JSON.stringify(e)))).toEqual(
      new Set([JSON.stringify([{ event: "message", data: '{"t":"é漢🙂"}' }])]),
    );
  });

  test("CRLF lines, multi-line data, comments and unknown fields", () => {
    const input = bytes(
      ": keep-alive\r\n\r\nid: 7\r\nretry: 10\r\ndata: one\r\ndata:two\r\n\r\n:\n\ndata: three\n\n",
    );
    expect(decodeInPieces(input, [3, 17, 30])).toEqual([
      { event: "message", data: "one\ntwo" },
      { event: "message", data: "three" },
    ]);
  });

  test("an event name is kept for its event only", () => {
    const input = bytes('event: error\ndata: {"error":{"message":"x"}}\n\ndata: after\n\n');
    expect(decodeInPieces(input, [])).toEqual([
      { event: "error", data: '{"error":{"message":"x"}}' },
      { event: "message", data: "after" },
    ]);
  });

  test("a last event without its blank line or newline is still delivered at the end", () => {
    expect(decodeInPieces(bytes("data: a\n\ndata: [DONE]"), [9])).toEqual([
      { event: "message", data: "a" },
      { event: "message", data: "[DONE]" },
    ]);
  });

  test("comment-only and blank input yields nothing", () => {
    expect(decodeInPieces(bytes(": keep-alive\n\n\n\n: keep-alive\n\n"), [5])).toEqual([]);
  });
});
