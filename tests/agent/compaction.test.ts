/**
 * Compaction through a real composition and the scripted model server: automatic before the
 * request that would pass `compact_at`, on request, after a context-length refusal; what the
 * log keeps and what later requests send, also after a reopen.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import type { AgentHandle, LiveEvent } from "../../src/agent/types.ts";
import { replayUpdates } from "../../src/acp/replay.ts";
import { ConflictError } from "../../src/errors.ts";
import { summaryMessageText } from "../../src/session/context.ts";
import { createTestAgent, type TestAgent } from "../support/agent.ts";
import {
  type ModelServer,
  type RecordedRequest,
  type ScriptedTurn,
  startModelServer,
} from "../support/model-server.ts";

const CONFIG = `
compact_at = 0.8
[[models]]
id = "deepseek-flash"
context_window = 10000
prices = { cache_hit = 1, cache_miss = 2, output = 4 }
`;

const TOO_LONG = {
  status: 400,
  json: {
    error: {
      message:
        "This model's maximum context length is 10000 tokens. However, you requested 12000 tokens. Please reduce the length of the messages or completion.",
      type: "invalid_request_error",
      param: null,
      code: null,
    },
  },
};

interface Tokens {
  readonly prompt: number;
  readonly completion: number;
  readonly cacheHit?: number;
}

function answer(text: string, usage: Tokens): ScriptedTurn {
  return { respond: { stream: [{ text }, { finish: "stop" }, { usage }, { done: true }] } };
}

function readStep(id: string, path: string, usage: Tokens): ScriptedTurn {
  return {
    respond: {
      stream: [
        { toolCall: { index: 0, id, name: "read_file", args: JSON.stringify({ path }) } },
        { finish: "tool_calls" },
        { usage },
        { done: true },
      ],
    },
  };
}

const Messages = v.array(
  v.looseObject({ role: v.string(), content: v.optional(v.nullable(v.string())) }),
);
const messagesOf = (request: RecordedRequest | undefined) =>
  v.parse(Messages, request?.body.messages);
const rolesOf = (request: RecordedRequest | undefined) => messagesOf(request).map((m) => m.role);

let server: ModelServer;
let agent: TestAgent;

beforeEach(async () => {
  server = await startModelServer();
  agent = createTestAgent({ baseUrl: server.url, configToml: CONFIG });
  writeFileSync(join(agent.cwd, "notes.txt"), "alpha\n");
});

afterEach(async () => {
  await agent[Symbol.asyncDispose]();
  expect([server.failures, server.pending()]).toEqual([[], 0]);
  await server[Symbol.asyncDispose]();
});

function collect(handle: AgentHandle): LiveEvent[] {
  const seen: LiveEvent[] = [];
  void (async () => {
    for await (const event of handle.events()) seen.push(event);
  })();
  return seen;
}

/** About 2,400 estimated tokens: more than the 2,000 a compaction keeps verbatim here. */
const LONG_ANSWER = "The first task is done. ".repeat(400);

describe("automatic compaction", () => {
  test("happens before the request that would pass the threshold; that request carries the summary and the recent tail", async () => {
    server.script(
      answer(LONG_ANSWER, { prompt: 7000, completion: 900 }),
      // Turn 2, step 1: 7000 + 900 + the new prompt stays under 8000.
      readStep("c1", "notes.txt", { prompt: 7990, completion: 20, cacheHit: 7000 }),
      // The next request would pass 8000: the summary comes first.
      answer("SUMMARY: task one done; notes.txt read next.", { prompt: 7950, completion: 30 }),
      answer("notes say alpha", { prompt: 300, completion: 5 }),
    );
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const live = collect(handle);
    expect(
      (await handle.prompt([{ type: "text", text: "task one" }], new AbortController().signal))
        .reason,
    ).toBe("end_turn");
    expect(
      (await handle.prompt([{ type: "text", text: "task two" }], new AbortController().signal))
        .reason,
    ).toBe("end_turn");

    const [, , summaryRequest, after] = server.requests;
    expect(summaryRequest?.body).toMatchObject({
      tool_choice: "none",
      thinking: { type: "disabled" },
    });
    expect(rolesOf(summaryRequest)).toEqual(["system", "user", "assistant", "user"]);
    expect(messagesOf(summaryRequest).at(-1)?.content).toContain("summary of this session");
    // The summary request repeats the last request's prefix (system prompt and turn one).
    expect(messagesOf(summaryRequest).slice(0, 3)).toEqual(
      messagesOf(server.requests[1]).slice(0, 3),
    );

    const messages = messagesOf(after);
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(messages[1]?.content).toBe(
      `${summaryMessageText("SUMMARY: task one done; notes.txt read next.")}\n\ntask two`,
    );
    expect(messages[3]?.content).toContain("alpha");
    expect(JSON.stringify(after?.body).length).toBeLessThan(
      JSON.stringify(server.requests[1]?.body).length,
    );
    expect(JSON.stringify(messages)).not.toContain("The first task is done");

    const compaction = handle.history().find((event) => event.type === "compaction");
    const firstAnswer = handle.history().find((event) => event.type === "assistant_text");
    expect(compaction).toMatchObject({
      type: "compaction",
      summary: "SUMMARY: task one done; notes.txt read next.",
      upToSeq: firstAnswer?.seq,
    });
    expect(
      live.filter((e) => e.type === "compaction").map((e) => e.type === "compaction" && e.status),
    ).toEqual(["in_progress", "completed"]);
  });

  test("a session compacted in one process stays compacted after a reopen; replay still shows everything", async () => {
    server.script(
      answer(LONG_ANSWER, { prompt: 8500, completion: 100 }),
      answer("SUMMARY: task one is done.", { prompt: 8000, completion: 10 }),
      answer("two done", { prompt: 400, completion: 5 }),
    );
    let id: string;
    {
      await using handle = await agent.composition.service.create({ cwd: agent.cwd });
      id = handle.sessionId;
      await handle.prompt([{ type: "text", text: "task one" }], new AbortController().signal);
      // 8500 + 100 already passes 8000: turn two's first request summarizes turn one.
      await handle.prompt([{ type: "text", text: "task two" }], new AbortController().signal);
    }
    expect(rolesOf(server.requests[1])).toEqual(["system", "user", "assistant", "user"]);
    expect(messagesOf(server.requests[2]).map((m) => m.content?.slice(-8))).toEqual([
      expect.any(String),
      "task two",
    ]);

    server.script(answer("three done", { prompt: 500, completion: 5 }));
    await using reopened = await agent.composition.service.resume(id);
    expect(reopened.status()).toEqual({
      contextUsed: 405,
      contextWindow: 10000,
      costUsd: expect.any(Number),
    });
    await reopened.prompt([{ type: "text", text: "task three" }], new AbortController().signal);
    const third = messagesOf(server.requests[3]);
    expect(third.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(third[1]?.content).toContain("SUMMARY: task one is done.");
    expect(third[1]?.content).toContain("task two");
    expect(JSON.stringify(third)).not.toContain("The first task is done");

    const replay = replayUpdates(reopened.history(), { terminalOutput: false });
    const texts = replay.flatMap((u) =>
      (u.sessionUpdate === "user_message_chunk" || u.sessionUpdate === "agent_message_chunk") &&
      u.content.type === "text"
        ? [`${u.sessionUpdate}: ${u.content.text.trim().slice(0, 24).trim()}`]
        : [],
    );
    expect(texts).toEqual([
      "user_message_chunk: task one",
      "agent_message_chunk: The first task is done.",
      "user_message_chunk: task two",
      "agent_message_chunk: *Context compacted: the",
      "agent_message_chunk: two done",
      "user_message_chunk: task three",
      "agent_message_chunk: three done",
    ]);
    const withCapability = replayUpdates(reopened.history(), {
      terminalOutput: false,
      compaction: true,
    });
    expect(withCapability.filter((u) => u.sessionUpdate === "compaction_update")).toEqual([
      {
        sessionUpdate: "compaction_update",
        compactionId: expect.any(String),
        status: "completed",
        summary: [{ type: "text", text: "SUMMARY: task one is done." }],
      },
    ]);
  });

  test("a cancel during the compaction cancels the turn and leaves the history intact", async () => {
    server.script(answer(LONG_ANSWER, { prompt: 8500, completion: 100 }), {
      respond: { hang: true },
    });
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    await handle.prompt([{ type: "text", text: "task one" }], new AbortController().signal);
    const live = collect(handle);
    const stop = new AbortController();
    const second = handle.prompt([{ type: "text", text: "task two" }], stop.signal);
    await server.received(1);
    stop.abort();
    expect((await second).reason).toBe("cancelled");
    await server.aborted(1);
    expect(live.flatMap((e) => (e.type === "compaction" ? [e.status] : []))).toEqual([
      "in_progress",
      "cancelled",
    ]);
    expect(handle.history().some((event) => event.type === "compaction")).toBe(false);
    // The next turn compacts the whole history again: nothing of it was lost.
    server.script(
      answer("SUMMARY: one.", { prompt: 8000, completion: 5 }),
      answer("three done", { prompt: 400, completion: 5 }),
    );
    await handle.prompt([{ type: "text", text: "task three" }], new AbortController().signal);
    expect(server.requests[2]?.body.tool_choice).toBe("none");
    expect(messagesOf(server.requests[2]).map((m) => m.content?.slice(0, 8))).toEqual([
      expect.any(String),
      "task one",
      "The firs",
      expect.any(String),
    ]);
    // The cancelled prompt stays its own turn, marked unanswered, before the next one.
    expect(messagesOf(server.requests[3]).map((m) => m.content)).toEqual([
      expect.any(String),
      `${summaryMessageText("SUMMARY: one.")}\n\ntask two`,
      "(No answer: the user cancelled this turn before any reply.)",
      "task three",
    ]);
  });

  test("a cut right after a user message still sends alternating roles", async () => {
    server.script(
      answer("short answer", { prompt: 8500, completion: 10 }),
      answer("SUMMARY: a long request.", { prompt: 8500, completion: 10 }),
      answer("two done", { prompt: 300, completion: 5 }),
    );
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    await handle.prompt(
      [{ type: "text", text: `task one: ${LONG_ANSWER}` }],
      new AbortController().signal,
    );
    await handle.prompt([{ type: "text", text: "task two" }], new AbortController().signal);
    expect(rolesOf(server.requests[1])).toEqual(["system", "user"]);
    expect(messagesOf(server.requests[1])[1]?.content).toContain("summary of this session");
    expect(messagesOf(server.requests[2]).map((m) => [m.role, m.content?.slice(-12)])).toEqual([
      ["system", expect.any(String)],
      ["user", "on verbatim."],
      ["assistant", "short answer"],
      ["user", "task two"],
    ]);
  });

  test("a prompt is never compacted away before the model read it", async () => {
    server.script(answer("read it", { prompt: 50, completion: 5 }));
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const live = collect(handle);
    // About 9,000 estimated tokens in the first prompt of the session: nothing earlier to fold,
    // so no compaction is even tried.
    const outcome = await handle.prompt(
      [{ type: "text", text: "x".repeat(36_000) }],
      new AbortController().signal,
    );
    expect(outcome.reason).toBe("end_turn");
    expect(live.filter((event) => event.type === "compaction")).toEqual([]);
    expect(server.requests.length).toBe(1);
    expect(handle.history().some((event) => event.type === "compaction")).toBe(false);
  });
});

describe("a context-length refusal", () => {
  test("compacts once and retries the same request", async () => {
    server.script(
      answer(LONG_ANSWER, { prompt: 3000, completion: 100 }),
      { respond: TOO_LONG },
      answer("SUMMARY: one.", { prompt: 3000, completion: 10 }),
      answer("two done", { prompt: 200, completion: 5 }),
    );
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    await handle.prompt([{ type: "text", text: "task one" }], new AbortController().signal);
    expect(
      (await handle.prompt([{ type: "text", text: "task two" }], new AbortController().signal))
        .reason,
    ).toBe("end_turn");
    expect(server.requests.length).toBe(4);
    expect(messagesOf(server.requests[3])[1]?.content).toContain("SUMMARY: one.");
  });

  test("a summary request refused as too long is tried once more with tool outputs cut short", async () => {
    writeFileSync(join(agent.cwd, "big.txt"), "a line of the big file\n".repeat(1000));
    server.script(
      readStep("r1", "big.txt", { prompt: 100, completion: 10 }),
      answer("read it", { prompt: 7000, completion: 10 }),
      { respond: TOO_LONG },
      { respond: TOO_LONG },
      answer("SUMMARY: big.txt read.", { prompt: 900, completion: 10 }),
      answer("two done", { prompt: 200, completion: 5 }),
    );
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    await handle.prompt([{ type: "text", text: "read big.txt" }], new AbortController().signal);
    expect(
      (await handle.prompt([{ type: "text", text: "task two" }], new AbortController().signal))
        .reason,
    ).toBe("end_turn");
    const toolOutput = (request: RecordedRequest | undefined) =>
      messagesOf(request).find((m) => m.role === "tool")?.content ?? "";
    expect(toolOutput(server.requests[3])).toContain("a line of the big file");
    expect(toolOutput(server.requests[4]).length).toBeLessThan(
      toolOutput(server.requests[3]).length / 5,
    );
    expect(toolOutput(server.requests[4])).toContain("left out here");
    expect(messagesOf(server.requests[5])[1]?.content).toContain("SUMMARY: big.txt read.");
  });

  test("a second refusal after the compaction ends the turn with a clear error", async () => {
    server.script(
      answer(LONG_ANSWER, { prompt: 3000, completion: 100 }),
      { respond: TOO_LONG },
      answer("SUMMARY: one.", { prompt: 3000, completion: 10 }),
      { respond: TOO_LONG },
    );
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    await handle.prompt([{ type: "text", text: "task one" }], new AbortController().signal);
    const outcome = await handle.prompt(
      [{ type: "text", text: "task two" }],
      new AbortController().signal,
    );
    expect(outcome).toEqual({
      turnId: expect.any(String),
      reason: "error",
      error: {
        code: "context_length",
        message: expect.stringMatching(
          /^the conversation is too long for the model's context window \(HTTP 400\): .*; it was compacted already$/,
        ),
      },
    });
    expect(server.requests.length).toBe(4);
  });

  test("with nothing to compact, the turn ends with the refusal and why compaction could not help", async () => {
    server.script({ respond: TOO_LONG });
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const outcome = await handle.prompt(
      [{ type: "text", text: "hi" }],
      new AbortController().signal,
    );
    expect(outcome.error).toEqual({
      code: "context_length",
      message: expect.stringContaining("; there is nothing to compact yet"),
    });
    expect(server.requests.length).toBe(1);
  });
});

describe("compact() on request", () => {
  test("summarizes everything so far, weighted to the focus, as a turn of its own", async () => {
    server.script(
      answer("one done", { prompt: 100, completion: 5 }),
      answer("SUMMARY with the parser first.", { prompt: 120, completion: 8, cacheHit: 100 }),
      answer("two done", { prompt: 60, completion: 5 }),
    );
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    await handle.prompt([{ type: "text", text: "task one" }], new AbortController().signal);
    const live = collect(handle);
    const outcome = await handle.compact({
      focus: "the parser",
      signal: new AbortController().signal,
    });
    expect(outcome.reason).toBe("end_turn");
    expect(messagesOf(server.requests[1]).at(-1)?.content).toContain(
      "Give most weight to: the parser",
    );
    expect(live.map((e) => e.type)).toEqual([
      "turn_start",
      "compaction",
      "compaction",
      "usage",
      "turn_end",
    ]);
    await handle.prompt([{ type: "text", text: "task two" }], new AbortController().signal);
    expect(messagesOf(server.requests[2]).map((m) => m.content)).toEqual([
      expect.any(String),
      `${summaryMessageText("SUMMARY with the parser first.")}\n\ntask two`,
    ]);
    // Prices from the config: 100 misses × 2 + 5 × 4; 100 hits × 1 + 20 misses × 2 + 8 × 4; ...
    expect(handle.status().costUsd).toBeCloseTo((220 + 172 + 140) / 1_000_000, 12);
  });

  test("is refused while a turn runs", async () => {
    const gate = Promise.withResolvers<void>();
    server.script({
      respond: {
        stream: [{ until: gate.promise }, { text: "ok" }, { finish: "stop" }, { done: true }],
      },
    });
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const running = handle.prompt([{ type: "text", text: "hi" }], new AbortController().signal);
    await server.received(0);
    await expect(handle.compact({ signal: new AbortController().signal })).rejects.toThrow(
      ConflictError,
    );
    gate.resolve();
    await running;
  });

  test("cancelled, or failing, it leaves the history as it was", async () => {
    server.script(
      answer("one done", { prompt: 100, completion: 5 }),
      { respond: { hang: true } },
      {
        respond: {
          status: 400,
          json: { error: { message: "nope", type: "invalid_request_error" } },
        },
      },
      answer("two done", { prompt: 100, completion: 5 }),
    );
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    await handle.prompt([{ type: "text", text: "task one" }], new AbortController().signal);
    const before = rolesOf(server.requests[0]);

    const controller = new AbortController();
    const cancelled = handle.compact({ signal: controller.signal });
    await server.received(1);
    controller.abort();
    expect((await cancelled).reason).toBe("cancelled");

    const failed = await handle.compact({ signal: new AbortController().signal });
    expect(failed.error).toEqual({
      code: "compaction_failed",
      message: expect.stringContaining("the summary request failed:"),
    });
    expect(handle.history().some((event) => event.type === "compaction")).toBe(false);

    await handle.prompt([{ type: "text", text: "task two" }], new AbortController().signal);
    expect(rolesOf(server.requests[3])).toEqual([...before, "assistant", "user"]);
  });
});
