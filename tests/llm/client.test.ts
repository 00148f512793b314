/** The client's HTTP side against the real mock server: retries, typed errors, abort, key hygiene. */
import { describe, expect, test } from "bun:test";
import type { LlmEvent } from "../../src/llm/types.ts";
import type { Logger } from "../../src/log.ts";
import { startModelServer, textTurn } from "../support/model-server.ts";
import { API_KEY, chatRequest, clientFor, collect, digest } from "./helpers.ts";

const live = () => new AbortController().signal;
const errorBody = (message: string, type = "invalid_request_error") => ({
  error: { message, type, param: null, code: null },
});

/** A logger that remembers entries and lets a test wait for one. */
function recordingLogger() {
  const lines: string[] = [];
  const retrying = Promise.withResolvers<void>();
  const entry = (message: string, data?: Record<string, unknown>) => {
    lines.push(`${message} ${JSON.stringify(data ?? {})}`);
    if (message.includes("retrying")) retrying.resolve();
  };
  const logger: Logger = { debug: entry, info: entry, warn: entry, error: entry };
  return { logger, lines, retrying: retrying.promise };
}

describe("retries", () => {
  test.concurrent("429 with Retry-After: 0, then success: two requests, one output", async () => {
    await using server = await startModelServer();
    server.script(
      {
        respond: {
          status: 429,
          headers: { "retry-after": "0" },
          json: errorBody("slow down", "rate_limit_error"),
        },
      },
      textTurn("hello"),
    );
    const events = await collect(
      clientFor(server, { retry: { baseDelayMs: 60_000 } }).stream(chatRequest(), live()),
    );
    expect(digest(events)).toMatchObject({ text: "hello", end: { finish: "stop" } });
    expect([server.requests.length, server.pending()]).toEqual([2, 0]);
  });

  test.concurrent("500, 502, 503 and 504 are retried; the fourth failure is the answer", async () => {
    await using server = await startModelServer();
    server.script(
      { respond: { status: 500 } },
      { respond: { status: 502 } },
      { respond: { status: 504 } },
      { respond: { status: 503, json: errorBody("Server overloaded", "server_error") } },
    );
    const events = await collect(clientFor(server).stream(chatRequest(), live()));
    expect(digest(events).end).toEqual({
      error: "overloaded",
      message: `${new URL(server.url).host} is overloaded (HTTP 503): Server overloaded`,
    });
    expect(server.requests.length).toBe(4);
  });

  test.concurrent("a 500 after partial output is not retried", async () => {
    await using server = await startModelServer();
    server.script(
      { respond: { stream: [{ text: "half" }, { error: { message: "boom" } }] } },
      textTurn("never"),
    );
    const events = await collect(clientFor(server).stream(chatRequest(), live()));
    expect(digest(events)).toMatchObject({ text: "half", end: { error: "server" } });
    expect([server.requests.length, server.pending()]).toEqual([1, 1]);
  });

  test.concurrent("insufficient_system_resource before any output is retried", async () => {
    await using server = await startModelServer();
    server.script(
      {
        respond: {
          stream: [
            { comment: "keep-alive" },
            { finish: "insufficient_system_resource" },
            { done: true },
          ],
        },
      },
      textTurn("ok"),
    );
    const events = await collect(clientFor(server).stream(chatRequest(), live()));
    expect(digest(events)).toMatchObject({ text: "ok", end: { finish: "stop" } });
    expect(server.requests.length).toBe(2);
  });

  test.concurrent("insufficient_system_resource after text is a server error, not retried", async () => {
    await using server = await startModelServer();
    server.script({
      respond: { stream: [{ text: "a" }, { finish: "insufficient_system_resource" }] },
    });
    const events = await collect(clientFor(server).stream(chatRequest(), live()));
    expect(digest(events)).toMatchObject({ text: "a", end: { error: "server" } });
    expect(server.requests.length).toBe(1);
  });

  test.concurrent("a reset before the first byte is a network failure and is retried", async () => {
    await using server = await startModelServer();
    server.script({ respond: { stream: [{ disconnect: true }] } }, textTurn("again"));
    const events = await collect(clientFor(server).stream(chatRequest(), live()));
    expect(digest(events)).toMatchObject({ text: "again", end: { finish: "stop" } });
    expect(server.requests.length).toBe(2);
  });

  test.concurrent("the backoff wait ends at once when the signal aborts", async () => {
    await using server = await startModelServer();
    server.script({ respond: { status: 500 } });
    const { logger, retrying } = recordingLogger();
    const controller = new AbortController();
    const client = clientFor(server, { logger, retry: { baseDelayMs: 600_000 } });
    const done = collect(client.stream(chatRequest(), controller.signal));
    await retrying;
    controller.abort();
    expect(digest(await done).end).toEqual({
      error: "aborted",
      message: "the model request was cancelled",
    });
    expect(server.requests.length).toBe(1);
  });
});

describe("typed errors", () => {
  const cases = [
    [401, "auth", "rejected the API key"],
    [402, "insufficient_balance", "Insufficient Balance"],
    [400, "bad_request", "The `reasoning_content` in the thinking mode must be passed back"],
    [422, "bad_request", "Invalid max_tokens"],
  ] as const;
  for (const [status, code, fragment] of cases) {
    test.concurrent(`HTTP ${status} is ${code}, not retried, with the server's message`, async () => {
      await using server = await startModelServer();
      const message = status === 401 ? "Authentication Fails" : fragment;
      server.script({ respond: { status, json: errorBody(message) } });
      const events = await collect(clientFor(server).stream(chatRequest(), live()));
      expect(events.length).toBe(1);
      const end = digest(events).end as { error: string; message: string };
      expect([end.error, end.message.includes(fragment), end.message.includes(message)]).toEqual([
        code,
        true,
        true,
      ]);
      expect(server.requests.length).toBe(1);
    });
  }

  test.concurrent("a non-JSON error body is quoted as text", async () => {
    await using server = await startModelServer();
    server.script({ respond: { status: 400, json: "plain words" } });
    const events = await collect(clientFor(server).stream(chatRequest(), live()));
    expect((digest(events).end as { message: string }).message).toContain('"plain words"');
  });

  test.concurrent("a missing key is an error at the first request to a remote endpoint, naming both variables, and sends nothing", async () => {
    await using server = await startModelServer();
    // The model's own base URL is remote; the key check comes before any connection.
    const client = clientFor(server, { apiKey: undefined });
    const remote = { ...chatRequest().model, baseUrl: "https://api.deepseek.com" };
    const events = await collect(client.stream(chatRequest({ model: remote }), live()));
    expect(digest(events).end).toEqual({
      error: "missing_api_key",
      message:
        "no API key: run `dsh login`, or set DSH_API_KEY (or DEEPSEEK_API_KEY) to the key of your model provider",
    });
    expect(server.requests.length).toBe(0);
  });

  test.concurrent("an endpoint on this machine is asked without a key when none is set", async () => {
    await using server = await startModelServer();
    server.script(textTurn("local answer"));
    const events = await collect(
      clientFor(server, { apiKey: undefined }).stream(chatRequest(), live()),
    );
    expect(digest(events).text).toBe("local answer");
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  test.concurrent("an unreachable server is a network error naming the host, after the retries", async () => {
    await using server = await startModelServer();
    const url = server.url;
    await server[Symbol.asyncDispose]();
    const events = await collect(clientFor(server, { baseUrl: url }).stream(chatRequest(), live()));
    const end = digest(events).end as { error: string; message: string };
    expect([end.error, end.message.startsWith(`cannot reach ${new URL(url).host}: `)]).toEqual([
      "network",
      true,
    ]);
  });

  test.concurrent("the API key is sent as a bearer token and never appears in errors or logs", async () => {
    await using server = await startModelServer();
    server.script({
      respond: { status: 401, json: errorBody(`Incorrect API key provided: ${API_KEY}`) },
    });
    const { logger, lines } = recordingLogger();
    const events = await collect(clientFor(server, { logger }).stream(chatRequest(), live()));
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const end = digest(events).end as { error: string; message: string };
    expect([
      end.error,
      end.message.includes(API_KEY),
      end.message.includes("***"),
      lines.join("\n").includes(API_KEY),
    ]).toEqual(["auth", false, true, false]);
  });
});

describe("cancellation and liveness", () => {
  test.concurrent("abort mid-stream: the server records it, the step ends with aborted", async () => {
    await using server = await startModelServer();
    const never = Promise.withResolvers<void>();
    server.script({
      respond: {
        stream: [
          { reasoning: "hm" },
          { text: "first" },
          { until: never.promise },
          { text: "late" },
        ],
      },
    });
    const controller = new AbortController();
    const events: LlmEvent[] = [];
    for await (const event of clientFor(server).stream(chatRequest(), controller.signal)) {
      events.push(event);
      if (event.type === "text_delta") controller.abort();
    }
    await server.aborted(0);
    expect(digest(events)).toMatchObject({
      reasoning: "hm",
      text: "first",
      end: { error: "aborted" },
    });
    expect(server.requests.map((request) => request.aborted)).toEqual([true]);
  });

  test.concurrent("abort while the server has not answered at all", async () => {
    await using server = await startModelServer();
    server.script({ respond: { hang: true } });
    const controller = new AbortController();
    const done = collect(clientFor(server).stream(chatRequest(), controller.signal));
    await server.received(0);
    controller.abort();
    await server.aborted(0);
    expect(digest(await done).end).toMatchObject({ error: "aborted" });
  });

  test.concurrent("breaking out of the iteration releases the connection", async () => {
    await using server = await startModelServer();
    const never = Promise.withResolvers<void>();
    server.script({ respond: { stream: [{ text: "one" }, { until: never.promise }] } });
    for await (const event of clientFor(server).stream(chatRequest(), live())) {
      if (event.type === "text_delta") break;
    }
    await server.aborted(0);
    expect(server.requests[0]?.aborted).toBe(true);
  });

  test.concurrent("keep-alive comments count as liveness; silence past the stream timeout ends the step with no retry, after a stall notice", async () => {
    await using server = await startModelServer();
    const beats = Array.from({ length: 8 }, () => Promise.withResolvers<void>());
    server.script(
      {
        respond: {
          stream: [
            ...beats.flatMap((beat) => [{ until: beat.promise }, { comment: "keep-alive" }]),
            { text: "alive" },
            { finish: "stop" },
          ],
        },
      },
      { respond: { hang: true } },
      { respond: { hang: true } },
    );
    const client = clientFor(server, {
      streamTimeoutMs: 250,
      retry: { attempts: 2, baseDelayMs: 1 },
    });
    // Each keep-alive is released 50 ms after the previous one: 400 ms in all, well over the limit.
    const pacer = (async () => {
      for (const beat of beats) {
        await Bun.sleep(50);
        beat.resolve();
      }
    })();
    const first = await collect(client.stream(chatRequest(), live()));
    await pacer;
    const second = await collect(client.stream(chatRequest(), live()));
    const host = new URL(server.url).host;
    expect([digest(first).text, digest(second).end]).toEqual([
      "alive",
      {
        error: "network",
        message: `no data from ${host} for 250 ms; gave up (DSH_STREAM_TIMEOUT)`,
      },
    ]);
    expect(second.find((event) => event.type === "notice")).toMatchObject({
      type: "notice",
      severity: "warning",
      title: expect.stringMatching(
        new RegExp(`^Waiting for ${host}: nothing received for \\d+ ms$`),
      ),
      description: "dsh gives up after 250 ms of silence (DSH_STREAM_TIMEOUT).",
    });
    expect(server.requests.length).toBe(2);
  });
});
