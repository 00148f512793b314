/** The request body as sent: each message written once, the bytes those of the whole body. */
import { beforeEach, describe, expect, test } from "bun:test";
import { buildRequestBody, createRequestWriter } from "../../src/llm/request.ts";
import type { ChatMessage, ChatRequest, ModelInfo } from "../../src/llm/types.ts";
import { chatRequest, flash, readFileTool } from "./helpers.ts";

const history: ChatMessage[] = [
  { role: "system", content: "be brief" },
  { role: "user", content: 'read "a.ts" \u2028 and \\ this' },
  {
    role: "assistant",
    content: "",
    reasoning: "need the file",
    toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' }],
  },
  { role: "tool", toolCallId: "call_1", content: "export const a = 1;\n" },
  {
    role: "user",
    content: [
      { type: "text", text: "and this picture" },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
    ],
  },
  { role: "assistant", content: "done", reasoning: "", toolCalls: [] },
];

const models: ModelInfo[] = [
  { ...flash, vision: false },
  { ...flash, vision: true },
  { ...flash, reasoningEcho: "reasoning" },
  { ...flash, reasoningEcho: "none", thinking: "none", streamUsage: false },
  { ...flash, id: 'odd "id" with "messages":[] inside' },
];

/** The body written from scratch, as the bytes the server gets. */
function wholeBody(request: ChatRequest): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(buildRequestBody(request)));
}

/** One conversation's writer, as each test's requests share it. */
let writer = createRequestWriter();
beforeEach(() => {
  writer = createRequestWriter();
});
const requestBody = (request: ChatRequest) => writer.body(request);

describe("a request writer", () => {
  test("is the whole body's JSON for every model, the same messages sent again and again", () => {
    // Each model twice over the same message objects: the second time reuses what was written.
    for (const model of [...models, ...models]) {
      for (const request of [
        chatRequest({ model, messages: history }),
        chatRequest({ model, messages: history, tools: [readFileTool], effort: "max" }),
        chatRequest({ model, messages: history, tools: [readFileTool], toolChoice: "none" }),
        chatRequest({ model, messages: [] }),
      ]) {
        expect(requestBody(request)).toEqual(wholeBody(request));
      }
    }
  });

  test("a longer history after a shorter one keeps the shared messages' bytes", () => {
    const short = chatRequest({ messages: history.slice(0, 3) });
    const long = chatRequest({ messages: [...history, { role: "user", content: "more" }] });
    expect(requestBody(short)).toEqual(wholeBody(short));
    expect(requestBody(long)).toEqual(wholeBody(long));
    const text = new TextDecoder().decode(requestBody(long));
    expect(JSON.parse(text).messages).toHaveLength(history.length + 1);
  });

  test("requests that grow, shrink, branch and come back are each written as a whole", () => {
    const other: ChatMessage = { role: "user", content: "a different start" };
    const sequence: ChatMessage[][] = [
      [],
      history.slice(0, 1),
      history.slice(0, 2),
      history.slice(0, 4),
      history,
      [other, ...history.slice(1)],
      history.slice(0, 3),
      [...history.slice(0, 2), other, ...history.slice(3)],
      history,
      [...history, other],
    ];
    for (const messages of sequence) {
      const request = chatRequest({ messages });
      expect(requestBody(request)).toEqual(wholeBody(request));
    }
  });

  test("an array of messages changed in place after it was sent is written as it now is", () => {
    const messages = history.slice(0, 3);
    const first = chatRequest({ messages });
    expect(requestBody(first)).toEqual(wholeBody(first));
    messages.push({ role: "user", content: "pushed" });
    messages[1] = { role: "user", content: "replaced" };
    const again = chatRequest({ messages });
    expect(requestBody(again)).toEqual(wholeBody(again));
  });

  test("a 10,000-turn session assembled step by step is byte for byte a fresh body", () => {
    const long: ChatMessage[] = [{ role: "system", content: "be brief" }];
    for (let i = 0; i < 10_000; i++) {
      long.push({ role: "user", content: `question ${i} é 𝄞 \u2028` });
      long.push({
        role: "assistant",
        // A lone surrogate: JSON.stringify escapes it, so every piece stays whole text.
        content: i % 100 === 0 ? `answer ${i} \ud800` : `answer ${i}`,
        reasoning: i % 2 === 0 ? "" : `why ${i}`,
        toolCalls: i % 3 === 0 ? [{ id: `c${i}`, name: "read_file", arguments: "{}" }] : [],
      });
      if (i % 3 === 0) long.push({ role: "tool", toolCallId: `c${i}`, content: `out ${i}` });
    }
    const other = { ...flash, reasoningEcho: "reasoning" as const };
    const steps = [1_000, 18_000, 18_002, 18_005, 18_005, 21_000, 26_000, 26_001, 26_004];
    for (const [n, length] of steps.entries()) {
      const model = n === 6 ? other : flash;
      const request = chatRequest({
        model,
        messages: long.slice(0, length),
        tools: [readFileTool],
      });
      expect({ length, body: requestBody(request) }).toEqual({ length, body: wholeBody(request) });
    }
  });

  test("requests opening with another message, in between, leave the conversation's bodies whole", () => {
    // A summary request opens with a system message of its own, then the same messages.
    const summarySystem: ChatMessage = { role: "system", content: "summarize" };
    const renamed = { ...flash, id: "another-model" };
    for (let i = 1; i <= history.length; i++) {
      const turn = chatRequest({
        model: i % 2 === 0 ? renamed : flash,
        messages: history.slice(0, i),
      });
      const summary = chatRequest({
        messages: [summarySystem, ...history.slice(1, i), { role: "user", content: "summary?" }],
      });
      expect(requestBody(turn)).toEqual(wholeBody(turn));
      expect(requestBody(summary)).toEqual(wholeBody(summary));
    }
  });

  test("two conversations written in turn each get their own whole bodies", () => {
    const other = createRequestWriter();
    const theirs: ChatMessage[] = [{ role: "system", content: "be long" }];
    for (let i = 1; i <= history.length; i++) {
      theirs.push({ role: "user", content: `their question ${i}` });
      const mine = chatRequest({ messages: history.slice(0, i) });
      const yours = chatRequest({ messages: theirs.slice() });
      expect(requestBody(mine)).toEqual(wholeBody(mine));
      expect(other.body(yours)).toEqual(wholeBody(yours));
    }
  });
});
