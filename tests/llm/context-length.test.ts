/** A prompt longer than the model's window is told apart from other refusals, over real HTTP. */
import { describe, expect, test } from "bun:test";
import { isContextLengthError } from "../../src/llm/http-errors.ts";
import { startModelServer } from "../support/model-server.ts";
import { chatRequest, clientFor, collect, digest } from "./helpers.ts";

const body = (message: string, code: string | null = null) =>
  JSON.stringify({ error: { message, type: "invalid_request_error", param: null, code } });

const TOO_LONG = [
  // DeepSeek
  "This model's maximum context length is 1048576 tokens. However, you requested 1100000 tokens (1034464 in the messages, 65536 in the completion). Please reduce the length of the messages or completion.",
  // vLLM
  "This model's maximum context length is 32768 tokens. However, your request has 40000 input tokens.",
  "The prompt (total length 40000) is longer than the maximum model length of 32768.",
  // llama.cpp
  "the request exceeds the available context size, try increasing it",
  // gateways and Anthropic-style wording
  "prompt is too long: 210000 tokens > 200000 maximum",
  "Input is too long for requested model.",
  "too many tokens in the request",
];

describe("context length errors", () => {
  test("the wordings of DeepSeek, OpenAI, vLLM, llama.cpp and gateways are recognised", () => {
    expect(TOO_LONG.map((message) => isContextLengthError(400, body(message)))).toEqual(
      TOO_LONG.map(() => true),
    );
    expect(isContextLengthError(400, body("bad", "context_length_exceeded"))).toBe(true);
    expect(isContextLengthError(413, "Request Entity Too Large: prompt is too long")).toBe(true);
  });

  test("other refusals and load errors that mention tokens are not", () => {
    expect([
      isContextLengthError(400, body("Missing `reasoning_content` field")),
      isContextLengthError(400, body("Invalid max_tokens value, the valid range is [1, 8192]")),
      isContextLengthError(429, body("too many tokens per minute")),
      isContextLengthError(500, body("maximum context length exceeded")),
      isContextLengthError(400, ""),
    ]).toEqual([false, false, false, false, false]);
  });

  test.concurrent("DeepSeek's 400 ends the step as context_length, with no retry", async () => {
    await using server = await startModelServer();
    const [message] = TOO_LONG;
    server.script({
      respond: {
        status: 400,
        json: { error: { message, type: "invalid_request_error", param: null, code: null } },
      },
    });
    const events = await collect(
      clientFor(server).stream(chatRequest(), new AbortController().signal),
    );
    expect(digest(events).end).toEqual({
      error: "context_length",
      message: `the conversation is too long for the model's context window (HTTP 400): ${message}`,
    });
    expect(server.requests.length).toBe(1);
  });

  test.concurrent("an error inside a 200 stream that says the same is context_length too", async () => {
    await using server = await startModelServer();
    server.script({
      respond: { stream: [{ error: { message: TOO_LONG[1] ?? "", type: "BadRequestError" } }] },
    });
    const events = await collect(
      clientFor(server).stream(chatRequest(), new AbortController().signal),
    );
    expect(digest(events).end).toMatchObject({ error: "context_length" });
  });
});
