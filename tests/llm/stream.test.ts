/** The stream normaliser against the real mock server: every SSE edge case of llm.md §2. */
import { describe, expect, test } from "bun:test";
import { chunks, sseData, startModelServer, type StreamEvent } from "../support/model-server.ts";
import type { LlmEvent } from "../../src/llm/types.ts";
import { chatRequest, clientFor, collect, digest } from "./helpers.ts";

async function run(
  stream: readonly StreamEvent[],
  dialect?: "deepseek" | "ollama" | "vllm" | "llamacpp",
) {
  await using server = await startModelServer();
  server.script({ respond: { stream, ...(dialect === undefined ? {} : { dialect }) } });
  const events = await collect(
    clientFor(server).stream(chatRequest(), new AbortController().signal),
  );
  expect(server.pending()).toBe(0);
  return { events, requests: server.requests.length };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta, finish_reason: finish }],
});

describe("stream normalising", () => {
  test.concurrent("reasoning, text, usage and finish in order, as typed events", async () => {
    const { events } = await run([
      { comment: "keep-alive" },
      ...chunks("Let me think.", 5).map((reasoning) => ({ reasoning })),
      { text: "Hello" },
      { text: " world" },
      { finish: "stop" },
      { usage: { prompt: 100, completion: 20, cacheHit: 64, reasoning: 7 } },
      { done: true },
    ]);
    expect(events).toEqual([
      { type: "reasoning_delta", text: "Let m" },
      { type: "reasoning_delta", text: "e thi" },
      { type: "reasoning_delta", text: "nk." },
      { type: "text_delta", text: "Hello" },
      { type: "text_delta", text: " world" },
      {
        type: "usage",
        usage: {
          promptTokens: 100,
          completionTokens: 20,
          cachedTokens: 64,
          cacheMissTokens: 36,
          reasoningTokens: 7,
        },
      },
      { type: "finish", reason: "stop", toolCalls: [] },
    ]);
  });

  test.concurrent("a character split mid-UTF-8 across writes and a frame split mid-line", async () => {
    const frame = new TextEncoder().encode(
      'data: {"choices":[{"index":0,"delta":{"content":"漢字"}}]}\n\n',
    );
    const { events } = await run([
      { raw: frame.slice(0, 47) },
      { raw: frame.slice(47, 49) },
      { raw: frame.slice(49) },
      { finish: "stop" },
      { done: true },
    ]);
    expect(digest(events)).toMatchObject({ text: "漢字", end: { finish: "stop", toolCalls: [] } });
  });

  test.concurrent("multi-line data is joined with a newline before parsing", async () => {
    const { events } = await run([
      { raw: 'data: {"choices":[{"index":0,\ndata: "delta":{"content":"a\\nb"}}]}\n\n' },
      { finish: "stop" },
      { done: true },
    ]);
    expect(digest(events).text).toBe("a\nb");
  });

  test.concurrent("[DONE] without any finish_reason ends as unspecified", async () => {
    const { events } = await run([{ text: "hi" }, { done: true }]);
    expect(digest(events).end).toEqual({ finish: "unspecified", toolCalls: [] });
  });

  test.concurrent("a body that ends without [DONE] after a finish_reason is a success", async () => {
    const { events } = await run([{ text: "hi" }, { finish: "stop" }]);
    expect(digest(events).end).toEqual({ finish: "stop", toolCalls: [] });
  });

  test.concurrent("a body that ends with neither [DONE] nor a finish_reason is premature_eof, not retried", async () => {
    const { events, requests } = await run([{ text: "partial" }]);
    expect(digest(events)).toMatchObject({ text: "partial", end: { error: "premature_eof" } });
    expect(requests).toBe(1);
  });

  test.concurrent("a disconnect after partial text is premature_eof, not retried", async () => {
    const { events, requests } = await run([{ text: "partial" }, { disconnect: true }]);
    expect(digest(events)).toMatchObject({ text: "partial", end: { error: "premature_eof" } });
    expect(requests).toBe(1);
  });

  test.concurrent("a connection reset after partial text is premature_eof, not retried", async () => {
    await using server = await startModelServer();
    const sawText = Promise.withResolvers<void>();
    server.script({
      respond: {
        stream: [{ text: "partial" }, { until: sawText.promise }, { disconnect: "reset" }],
      },
    });
    const events: LlmEvent[] = [];
    for await (const event of clientFor(server).stream(
      chatRequest(),
      new AbortController().signal,
    )) {
      events.push(event);
      if (event.type === "text_delta") sawText.resolve();
    }
    expect(digest(events)).toMatchObject({ text: "partial", end: { error: "premature_eof" } });
    expect(server.requests.length).toBe(1);
  });

  test.concurrent("an error envelope inside a 200 stream surfaces as an error, not an empty success", async () => {
    const { events } = await run([
      { text: "par" },
      { error: { message: "upstream exploded", type: "server_error" } },
      { done: true },
    ]);
    expect(digest(events).end).toEqual({
      error: "server",
      message: "the model server reported an error: upstream exploded",
    });
  });

  test.concurrent("an `event: error` frame after output is an error", async () => {
    const { events } = await run([
      { text: "x" },
      {
        raw: 'event: error\ndata: {"error":{"message":"bad things","type":"invalid_request_error"}}\n\n',
      },
    ]);
    expect(digest(events).end).toEqual({
      error: "bad_request",
      message: "the model server reported an error: bad things",
    });
  });

  test.concurrent("a data line that is not JSON is a protocol error", async () => {
    const { events } = await run([{ text: "x" }, { raw: "data: {not json\n\n" }]);
    expect(digest(events).end).toMatchObject({ error: "protocol" });
  });

  test.concurrent("usage-only chunks with empty, null or missing choices; the last usage wins", async () => {
    const { events } = await run([
      { text: "ok" },
      { finish: "stop" },
      sseData({ choices: null, usage: { prompt_tokens: 1, completion_tokens: 1 } }),
      sseData({ usage: { prompt_tokens: 2, completion_tokens: 2 } }),
      sseData({
        choices: [],
        usage: { prompt_tokens: 9, completion_tokens: 3, prompt_cache_hit_tokens: 4 },
      }),
      { done: true },
    ]);
    expect(digest(events)).toMatchObject({
      text: "ok",
      usage: { promptTokens: 9, completionTokens: 3, cachedTokens: 4 },
      end: { finish: "stop", toolCalls: [] },
    });
  });

  test.concurrent("a tool call split across chunks is assembled; fragments stream as deltas", async () => {
    const { events } = await run([
      { reasoning: "need the file" },
      { toolCall: { index: 0, id: "call_a", name: "read_file", args: "" } },
      { toolCall: { index: 0, args: '{"pa' } },
      { toolCall: { index: 0, args: 'th":' } },
      { toolCall: { index: 0, args: '"a.ts"}' } },
      { finish: "tool_calls" },
      { usage: { prompt: 5, completion: 5 } },
      { done: true },
    ]);
    expect(digest(events)).toEqual({
      reasoning: "need the file",
      text: "",
      tools: ["start 0 call_a read_file", 'delta 0 {"pa', 'delta 0 th":', 'delta 0 "a.ts"}'],
      usage: { promptTokens: 5, completionTokens: 5, cachedTokens: 0, cacheMissTokens: 5 },
      end: {
        finish: "tool_calls",
        toolCalls: [{ id: "call_a", name: "read_file", arguments: '{"path":"a.ts"}' }],
      },
    });
  });

  test.concurrent("parallel calls interleaved by index stay apart; empty arguments become {}", async () => {
    const { events } = await run([
      { toolCall: { index: 0, id: "c0", name: "glob", args: "" } },
      { toolCall: { index: 1, id: "c1", name: "read_file", args: '{"path":' } },
      { toolCall: { index: 0, args: '{"pattern":"*.ts"' } },
      { toolCall: { index: 1, args: '"b"}' } },
      { toolCall: { index: 0, args: "}" } },
      { toolCall: { index: 2, id: "c2", name: "noop" } },
      { finish: "tool_calls" },
      { done: true },
    ]);
    expect(digest(events).end).toEqual({
      finish: "tool_calls",
      toolCalls: [
        { id: "c0", name: "glob", arguments: '{"pattern":"*.ts"}' },
        { id: "c1", name: "read_file", arguments: '{"path":"b"}' },
        { id: "c2", name: "noop", arguments: "{}" },
      ],
    });
  });

  test.concurrent("missing index and id: position in the array and a made-up stable id", async () => {
    const { events } = await run([
      sseData(
        chunk({
          tool_calls: [
            { function: { name: "a", arguments: "{}" } },
            { function: { name: "b", arguments: "{}" } },
          ],
        }),
      ),
      { finish: "tool_calls" },
      { done: true },
    ]);
    expect(digest(events).end).toEqual({
      finish: "tool_calls",
      toolCalls: [
        { id: "call_1_0", name: "a", arguments: "{}" },
        { id: "call_1_1", name: "b", arguments: "{}" },
      ],
    });
  });

  test.concurrent("index 0 reused with a different id starts a new call (old Ollama)", async () => {
    const { events } = await run(
      [
        { reasoning: "two reads" },
        { toolCall: { index: 0, id: "x1", name: "read_file", args: '{"path":"a"}' } },
        { toolCall: { index: 0, id: "x2", name: "read_file", args: '{"path":"b"}' } },
        { finish: "tool_calls" },
        { done: true },
      ],
      "ollama",
    );
    expect(digest(events)).toMatchObject({
      reasoning: "two reads",
      text: "",
      end: {
        finish: "tool_calls",
        toolCalls: [
          { id: "x1", name: "read_file", arguments: '{"path":"a"}' },
          { id: "x2", name: "read_file", arguments: '{"path":"b"}' },
        ],
      },
    });
  });

  test.concurrent('ollama: reasoning under `reasoning` beside content "", a whole call without id', async () => {
    const { events } = await run(
      [
        { reasoning: "hmm" },
        { toolCall: { index: 0, name: "glob", args: '{"pattern":"*"}' } },
        { finish: "stop" },
        { done: true },
      ],
      "ollama",
    );
    expect(events).toEqual([
      { type: "reasoning_delta", text: "hmm" },
      { type: "tool_call_start", index: 0, id: "call_1_0", name: "glob" },
      { type: "tool_call_delta", index: 0, fragment: '{"pattern":"*"}' },
      // finish_reason "stop" with calls assembled is still a tool step.
      {
        type: "finish",
        reason: "tool_calls",
        toolCalls: [{ id: "call_1_0", name: "glob", arguments: '{"pattern":"*"}' }],
      },
    ]);
  });

  test.concurrent("vllm: `reasoning` field and a usage chunk with choices null", async () => {
    const { events } = await run(
      [
        { reasoning: "r" },
        { text: "t" },
        { finish: "stop" },
        { usage: { prompt: 3, completion: 2 } },
        { done: true },
      ],
      "vllm",
    );
    expect(digest(events)).toMatchObject({
      reasoning: "r",
      text: "t",
      usage: { promptTokens: 3, completionTokens: 2 },
      end: { finish: "stop" },
    });
  });

  test.concurrent("llamacpp: a null finish at the end and usage on a chunk with choices", async () => {
    const { events } = await run(
      [
        { reasoning: "r" },
        { text: "t" },
        { finish: null },
        { usage: { prompt: 3, completion: 2 } },
        { done: true },
      ],
      "llamacpp",
    );
    expect(digest(events)).toMatchObject({
      reasoning: "r",
      text: "t",
      usage: { promptTokens: 3, completionTokens: 2 },
      end: { finish: "unspecified", toolCalls: [] },
    });
  });

  test.concurrent("finish length drops a call cut off mid-arguments and keeps complete ones", async () => {
    const { events } = await run([
      { toolCall: { index: 0, id: "ok", name: "read_file", args: '{"path":"a"}' } },
      { toolCall: { index: 1, id: "cut", name: "write_file", args: '{"path":"b","content":"lo' } },
      { finish: "length" },
      { done: true },
    ]);
    expect(digest(events).end).toEqual({
      finish: "length",
      toolCalls: [{ id: "ok", name: "read_file", arguments: '{"path":"a"}' }],
    });
  });

  test.concurrent("choices other than index 0 are ignored", async () => {
    const { events } = await run([
      sseData({
        choices: [
          { index: 1, delta: { content: "other" } },
          { index: 0, delta: { content: "mine" } },
        ],
      }),
      { finish: "stop" },
      { done: true },
    ]);
    expect(digest(events).text).toBe("mine");
  });
});
