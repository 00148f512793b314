/** What goes over the wire: the request body the mock server records. */
import { describe, expect, test } from "bun:test";
import { createModelCatalog } from "../../src/llm/catalog.ts";
import { buildRequestBody, imageOmitted } from "../../src/llm/request.ts";
import type { ChatMessage, ChatRequest, Effort, ModelInfo } from "../../src/llm/types.ts";
import {
  expectReasoningEcho,
  startModelServer,
  textTurn,
  toolTurn,
  type ScriptedTurn,
} from "../support/model-server.ts";
import { chatRequest, clientFor, collect, digest, flash, readFileTool } from "./helpers.ts";

const live = () => new AbortController().signal;

/** Sends one request and returns the recorded body. */
async function sentBody(request: ChatRequest, turn: ScriptedTurn = textTurn("ok")) {
  await using server = await startModelServer();
  server.script(turn);
  const events = await collect(clientFor(server).stream(request, live()));
  expect(digest(events).end).toMatchObject({ finish: "stop" });
  return { body: server.requests[0]?.body, path: server.requests[0]?.path };
}

describe("request body", () => {
  test.concurrent("DeepSeek model with tools: every field dsh sends, and nothing else", async () => {
    const { body, path } = await sentBody(chatRequest({ tools: [readFileTool], effort: "high" }));
    expect([path, body]).toEqual([
      "/chat/completions",
      {
        model: "deepseek-flash",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
        stream_options: { include_usage: true },
        tools: [{ type: "function", function: readFileTool }],
        tool_choice: "auto",
        max_tokens: flash.maxOutputTokens,
        thinking: { type: "enabled" },
        reasoning_effort: "high",
      },
    ]);
  });

  test.concurrent("no tools: neither tools nor tool_choice; a base URL with /v1/ and a trailing slash", async () => {
    await using server = await startModelServer();
    server.script(textTurn("ok"));
    await collect(
      clientFor(server, { baseUrl: `${server.url}/v1/` }).stream(chatRequest(), live()),
    );
    const body = server.requests[0]?.body ?? {};
    expect([server.requests[0]?.path, "tools" in body, "tool_choice" in body]).toEqual([
      "/v1/chat/completions",
      false,
      false,
    ]);
  });

  test.concurrent("toolChoice none offers the same tools with tool_choice none", async () => {
    const { body } = await sentBody(chatRequest({ tools: [readFileTool], toolChoice: "none" }));
    expect([body?.tools, body?.tool_choice]).toEqual([
      [{ type: "function", function: readFileTool }],
      "none",
    ]);
  });

  const thinking: [Effort | undefined, Record<string, unknown>][] = [
    ["off", { thinking: { type: "disabled" } }],
    ["low", { thinking: { type: "enabled" }, reasoning_effort: "low" }],
    ["max", { thinking: { type: "enabled" }, reasoning_effort: "max" }],
    [undefined, { thinking: { type: "enabled" } }],
  ];
  for (const [effort, fields] of thinking) {
    test.concurrent(`DeepSeek thinking fields for effort ${effort ?? "(unset)"}`, async () => {
      const { body } = await sentBody(chatRequest({ ...(effort === undefined ? {} : { effort }) }));
      expect({ thinking: body?.thinking, reasoning_effort: body?.reasoning_effort }).toEqual({
        thinking: undefined,
        reasoning_effort: undefined,
        ...fields,
      });
    });
  }

  test.concurrent("a reasoning_effort model gets the effort unless off; a generic model gets neither", async () => {
    const catalog = createModelCatalog({
      userModels: [
        {
          id: "local",
          base_url: "http://127.0.0.1:1",
          thinking: "reasoning_effort",
          stream_usage: false,
        },
      ],
    });
    const local: ModelInfo = { ...catalog.get("local"), baseUrl: undefined };
    const low = await sentBody(chatRequest({ model: local, effort: "low" }));
    const off = await sentBody(chatRequest({ model: local, effort: "off" }));
    const generic = await sentBody(
      chatRequest({ model: catalog.get("some-other-model"), effort: "high" }),
    );
    const pick = (body: Record<string, unknown> | undefined) => ({
      reasoning_effort: body?.reasoning_effort,
      thinking: body?.thinking,
      stream_options: body?.stream_options,
    });
    expect([pick(low.body), pick(off.body), pick(generic.body)]).toEqual([
      { reasoning_effort: "low", thinking: undefined, stream_options: undefined },
      { reasoning_effort: undefined, thinking: undefined, stream_options: undefined },
      { reasoning_effort: undefined, thinking: undefined, stream_options: { include_usage: true } },
    ]);
  });
});

describe("reasoning round trip", () => {
  const history: ChatMessage[] = [
    { role: "system", content: "sys" },
    { role: "user", content: "read a" },
    {
      role: "assistant",
      content: "",
      reasoning: "I should read a.\nThen answer.",
      toolCalls: [{ id: "call_a", name: "read_file", arguments: '{"path":"a"}' }],
    },
    { role: "tool", toolCallId: "call_a", content: "contents of a" },
    {
      role: "assistant",
      content: "",
      reasoning: "",
      toolCalls: [{ id: "call_b", name: "read_file", arguments: "{}" }],
    },
    { role: "tool", toolCallId: "call_b", content: "contents of b" },
  ];

  test.concurrent('step 2 echoes step 1\'s reasoning exactly and sends "" for empty reasoning', async () => {
    await using server = await startModelServer();
    server.script(
      toolTurn([{ id: "call_a", name: "read_file", args: { path: "a" } }], {
        reasoning: "I should read a.\nThen answer.",
      }),
      { ...textTurn("done"), expect: expectReasoningEcho(["I should read a.\nThen answer.", ""]) },
    );
    const client = clientFor(server);
    const first = digest(
      await collect(
        client.stream(
          chatRequest({ messages: history.slice(0, 2), tools: [readFileTool] }),
          live(),
        ),
      ),
    );
    expect(first.end).toEqual({
      finish: "tool_calls",
      toolCalls: [{ id: "call_a", name: "read_file", arguments: '{"path":"a"}' }],
    });
    const second = digest(
      await collect(
        client.stream(chatRequest({ messages: history, tools: [readFileTool] }), live()),
      ),
    );
    expect([second.text, server.failures]).toEqual(["done", []]);
    expect(server.requests[1]?.body.messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "read a" },
      {
        role: "assistant",
        content: "",
        reasoning_content: "I should read a.\nThen answer.",
        tool_calls: [
          {
            id: "call_a",
            type: "function",
            function: { name: "read_file", arguments: '{"path":"a"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "contents of a" },
      {
        role: "assistant",
        content: "",
        reasoning_content: "",
        tool_calls: [
          { id: "call_b", type: "function", function: { name: "read_file", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_b", content: "contents of b" },
    ]);
  });

  test.concurrent("a missing echo is refused the way DeepSeek refuses it, as bad_request", async () => {
    await using server = await startModelServer();
    server.script({ ...textTurn("never"), expect: expectReasoningEcho() });
    const model: ModelInfo = { ...flash, reasoningEcho: "none" };
    const end = digest(
      await collect(clientFor(server).stream(chatRequest({ model, messages: history }), live())),
    ).end;
    expect(end).toMatchObject({ error: "bad_request" });
    expect(server.failures).toEqual([
      "request 0: Missing `reasoning_content` field in the assistant message at message index 2",
    ]);
  });

  test.concurrent('reasoningEcho "reasoning" uses vLLM\'s field name', async () => {
    const model: ModelInfo = { ...flash, reasoningEcho: "reasoning" };
    const { body } = await sentBody(chatRequest({ model, messages: history.slice(0, 4) }));
    expect(body?.messages).toContainEqual({
      role: "assistant",
      content: "",
      reasoning: "I should read a.\nThen answer.",
      tool_calls: [
        {
          id: "call_a",
          type: "function",
          function: { name: "read_file", arguments: '{"path":"a"}' },
        },
      ],
    });
  });
});

describe("images", () => {
  const parts: ChatMessage = {
    role: "user",
    content: [
      { type: "text", text: "what is it?" },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
    ],
  };
  test("reach a vision model as image_url data URLs, and a model without vision as a note", () => {
    const catalog = createModelCatalog();
    const sent = (id: string) =>
      buildRequestBody({ model: catalog.get(id), messages: [parts], tools: [] }).messages;
    expect([sent("deepseek-flash"), sent("deepseek-v4-pro")]).toEqual([
      [
        {
          role: "user",
          content: [
            { type: "text", text: "what is it?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          ],
        },
      ],
      [
        {
          role: "user",
          content: [
            { type: "text", text: "what is it?" },
            { type: "text", text: imageOmitted() },
          ],
        },
      ],
    ]);
  });
});
