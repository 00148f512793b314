import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentHandle, LiveEvent } from "../../src/agent/types.ts";
import type { SessionEvent } from "../../src/session/events.ts";
import { createTestAgent, type TestAgent } from "../support/agent.ts";
import {
  expectReasoningEcho,
  type ModelServer,
  startModelServer,
  textTurn,
  toolTurn,
} from "../support/model-server.ts";
import { FIRST_TURN_OPENING } from "../support/session-events.ts";

let server: ModelServer;
let agent: TestAgent;

beforeEach(async () => {
  server = await startModelServer();
  agent = createTestAgent({ baseUrl: server.url });
});

afterEach(async () => {
  await agent[Symbol.asyncDispose]();
  expect(server.failures).toEqual([]);
  await server[Symbol.asyncDispose]();
});

/** Collects live events until (and including) the next `turn_end`. */
function collectTurn(handle: AgentHandle): Promise<LiveEvent[]> {
  const events = handle.events();
  return (async () => {
    const seen: LiveEvent[] = [];
    for await (const event of events) {
      seen.push(event);
      if (event.type === "turn_end") break;
    }
    return seen;
  })();
}

/** Resolves at the first live event of the given type. */
function nextEvent(handle: AgentHandle, type: LiveEvent["type"]): Promise<LiveEvent> {
  const events = handle.events();
  return (async () => {
    for await (const event of events) if (event.type === type) return event;
    throw new Error(`no ${type} event`);
  })();
}

function logLines(home: string, id: string): SessionEvent[] {
  const text = readFileSync(join(home, "sessions", `${id}.jsonl`), "utf8");
  return text
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line));
}

describe("a turn", () => {
  test("runs a two-step tool turn, echoes reasoning, and logs every step", async () => {
    writeFileSync(join(agent.cwd, "notes.txt"), "alpha\nbeta\n");
    server.script(
      toolTurn([{ id: "call_1", name: "read_file", args: { path: "notes.txt" } }], {
        reasoning: "look at notes",
      }),
      { ...textTurn("notes say alpha and beta"), expect: expectReasoningEcho(["look at notes"]) },
    );
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const live = collectTurn(handle);
    const outcome = await handle.prompt(
      [{ type: "text", text: "what do my notes say?" }],
      new AbortController().signal,
    );
    expect(outcome.reason).toBe("end_turn");

    const kinds = (await live).map((event) => event.type);
    expect(kinds).toEqual([
      "turn_start",
      "reasoning_delta",
      "usage",
      "tool_call",
      "tool_start",
      "tool_result",
      "text_delta",
      "usage",
      "turn_end",
    ]);

    const second = server.requests[1]?.body.messages as { role: string; content?: string }[];
    expect(second.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(second[3]?.content).toContain("alpha");

    const logged = logLines(agent.home, handle.sessionId);
    expect(logged.map((event) => event.type)).toEqual([
      ...FIRST_TURN_OPENING,
      "usage",
      "reasoning",
      "tool_call",
      "tool_result",
      "usage",
      "assistant_text",
      "turn_end",
    ]);
    const result = logged.find((event) => event.type === "tool_result");
    expect(result?.type === "tool_result" && result.isError).toBe(false);
    expect(logged.map((event) => event.seq)).toEqual(logged.map((_, i) => i + 1));
  });

  test("ends max_tokens when the model stops at its length limit", async () => {
    server.script({
      respond: { stream: [{ text: "partial" }, { finish: "length" }, { done: true }] },
    });
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const outcome = await handle.prompt(
      [{ type: "text", text: "write a lot" }],
      new AbortController().signal,
    );
    expect(outcome.reason).toBe("max_tokens");
    expect(handle.history().some((e) => e.type === "assistant_text" && e.text === "partial")).toBe(
      true,
    );
  });

  test("ends max_turn_requests when the model never stops calling tools", async () => {
    await agent[Symbol.asyncDispose]();
    agent = createTestAgent({ baseUrl: server.url, configToml: "max_turn_requests = 2\n" });
    writeFileSync(join(agent.cwd, "a.txt"), "a");
    server.script(
      toolTurn([{ id: "c1", name: "read_file", args: { path: "a.txt" } }]),
      toolTurn([{ id: "c2", name: "read_file", args: { path: "a.txt" } }]),
    );
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const outcome = await handle.prompt(
      [{ type: "text", text: "loop" }],
      new AbortController().signal,
    );
    expect(outcome.reason).toBe("max_turn_requests");
    expect(server.requests.length).toBe(2);
  });

  test("ends error with the typed code when the endpoint rejects the key", async () => {
    server.script({
      respond: { status: 401, json: { error: { message: "Authentication Fails", type: "auth" } } },
    });
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const outcome = await handle.prompt(
      [{ type: "text", text: "hi" }],
      new AbortController().signal,
    );
    expect(outcome.reason).toBe("error");
    expect(outcome.error?.code).toBe("auth");
    const end = handle.history().at(-1);
    expect(end?.type === "turn_end" && end.error?.code).toBe("auth");
  });

  test("an invalid tool argument becomes an error result the model reads, and the turn goes on", async () => {
    server.script(
      {
        respond: {
          stream: [
            { toolCall: { index: 0, id: "bad", name: "read_file", args: "{not json" } },
            { finish: "tool_calls" },
            { done: true },
          ],
        },
      },
      textTurn("sorry"),
    );
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const outcome = await handle.prompt(
      [{ type: "text", text: "read it" }],
      new AbortController().signal,
    );
    expect(outcome.reason).toBe("end_turn");
    const result = handle.history().find((e) => e.type === "tool_result");
    expect(result?.type === "tool_result" && result.isError).toBe(true);
  });

  test("rejects an empty prompt and a second prompt while one runs, leaving the first untouched", async () => {
    const release = Promise.withResolvers<void>();
    server.script({
      respond: {
        stream: [
          { text: "first " },
          { until: release.promise },
          { text: "done" },
          { finish: "stop" },
          { done: true },
        ],
      },
    });
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    await expect(
      handle.prompt([{ type: "text", text: "  " }], new AbortController().signal),
    ).rejects.toMatchObject({
      code: "invalid_input",
    });
    const started = nextEvent(handle, "text_delta");
    const first = handle.prompt([{ type: "text", text: "one" }], new AbortController().signal);
    await started;
    await expect(
      handle.prompt([{ type: "text", text: "two" }], new AbortController().signal),
    ).rejects.toMatchObject({
      code: "conflict",
    });
    release.resolve();
    const outcome = await first;
    expect(outcome.reason).toBe("end_turn");
    expect(handle.history().filter((e) => e.type === "user_message").length).toBe(1);
  });
});

describe("cancel", () => {
  test("mid-stream keeps the partial text, aborts the request and ends cancelled", async () => {
    server.script({
      respond: {
        stream: [{ reasoning: "hmm" }, { text: "part" }, { until: new Promise(() => {}) }],
      },
    });
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const started = nextEvent(handle, "text_delta");
    const stop = new AbortController();
    const turn = handle.prompt([{ type: "text", text: "go" }], stop.signal);
    await started;
    stop.abort();
    const outcome = await turn;
    expect(outcome.reason).toBe("cancelled");
    await server.aborted(0);
    const types = handle.history().map((e) => e.type);
    expect(types).toEqual([...FIRST_TURN_OPENING, "reasoning", "assistant_text", "turn_end"]);
  });

  test("before the first token ends cancelled without output", async () => {
    server.script({ respond: { hang: true } });
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const stop = new AbortController();
    const turn = handle.prompt([{ type: "text", text: "go" }], stop.signal);
    await server.received(0);
    stop.abort();
    expect((await turn).reason).toBe("cancelled");
    await server.aborted(0);
  });

  test("mid-tool kills the running command and records a result for the call", async () => {
    await agent[Symbol.asyncDispose]();
    agent = createTestAgent({ baseUrl: server.url, env: { DSH_PERMISSION: "danger-full-access" } });
    const marker = join(agent.cwd, "after-sleep");
    server.script(
      toolTurn([{ id: "sleepy", name: "bash", args: { command: `sleep 30; touch ${marker}` } }]),
    );
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const running = nextEvent(handle, "tool_start");
    const stop = new AbortController();
    const turn = handle.prompt([{ type: "text", text: "sleep" }], stop.signal);
    await running;
    stop.abort();
    const outcome = await turn;
    expect(outcome.reason).toBe("cancelled");
    const result = handle.history().find((e) => e.type === "tool_result");
    expect(result?.type === "tool_result" && result.callId).toBe("sleepy");
    expect(Bun.file(marker).size).toBe(0);
    // The next turn's history pairs the call with its result; the server would reject otherwise.
    server.script(textTurn("ok"));
    expect(
      (await handle.prompt([{ type: "text", text: "again" }], new AbortController().signal)).reason,
    ).toBe("end_turn");
  });
});

describe("settings", () => {
  test("an idle change is held until the next prompt anchors it, then reaches the request", async () => {
    await agent[Symbol.asyncDispose]();
    agent = createTestAgent({
      baseUrl: server.url,
      configToml: '[[models]]\nid = "other-model"\nname = "Other"\n',
    });
    server.script(textTurn("one"));
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    handle.configure({ model: "other-model" });
    expect(handle.settings().model).toBe("other-model");
    expect(handle.history().some((e) => e.type === "model")).toBe(false);
    await handle.prompt([{ type: "text", text: "hi" }], new AbortController().signal);
    const types = handle.history().map((e) => e.type);
    expect(types.indexOf("model")).toBe(types.indexOf("prompt_submit") + 1);
    expect(server.requests[0]?.body.model).toBe("other-model");
  });

  test("a change during a turn is logged at once", async () => {
    await agent[Symbol.asyncDispose]();
    agent = createTestAgent({ baseUrl: server.url });
    const release = Promise.withResolvers<void>();
    server.script({
      respond: {
        stream: [{ text: "a" }, { until: release.promise }, { finish: "stop" }, { done: true }],
      },
    });
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const started = nextEvent(handle, "text_delta");
    const turn = handle.prompt([{ type: "text", text: "hi" }], new AbortController().signal);
    await started;
    handle.configure({ knobs: { sandboxMode: "read-only", approvalPolicy: "on-request" } });
    expect(handle.history().at(-1)?.type).toBe("sandbox_mode");
    release.resolve();
    await turn;
  });

  test("a resumed session keeps its own settings, whatever the defaults of the process reopening it", async () => {
    await agent[Symbol.asyncDispose]();
    agent = createTestAgent({ baseUrl: server.url, env: { DSH_PERMISSION: "read-only" } });
    server.script(textTurn("noted"));
    const id = await (async () => {
      await using handle = await agent.composition.service.create({ cwd: agent.cwd });
      await handle.prompt([{ type: "text", text: "hi" }], new AbortController().signal);
      return handle.sessionId;
    })();
    const reopened = createTestAgent({ baseUrl: server.url, env: { DSH_HOME: agent.home } });
    try {
      await using handle = await reopened.composition.service.resume(id, { cwd: agent.cwd });
      expect(handle.settings().knobs).toEqual({
        sandboxMode: "read-only",
        approvalPolicy: "on-request",
      });
    } finally {
      await reopened[Symbol.asyncDispose]();
    }
  });

  test("takes a model id the catalog does not know as-is, and rejects a malformed one", async () => {
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    expect(handle.configure({ model: "qwen3-coder:30b" }).model).toBe("qwen3-coder:30b");
    for (const model of ["", "two words", "x".repeat(300)]) {
      expect(() => handle.configure({ model })).toThrow("malformed model id");
    }
  });
});

describe("the service", () => {
  test("resumes a session with its history and refuses a second live copy", async () => {
    server.script(textTurn("hello"), textTurn("again"));
    const id = await (async () => {
      await using handle = await agent.composition.service.create({ cwd: agent.cwd });
      await handle.prompt([{ type: "text", text: "hi" }], new AbortController().signal);
      return handle.sessionId;
    })();
    await using resumed = await agent.composition.service.resume(id, { cwd: agent.cwd });
    await expect(agent.composition.service.resume(id)).rejects.toMatchObject({ code: "conflict" });
    await resumed.prompt([{ type: "text", text: "more" }], new AbortController().signal);
    const messages = server.requests[1]?.body.messages as { role: string }[];
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
  });

  test("refuses bad ids, unknown ids, wrong cwds and bad cwds", async () => {
    const { service } = agent.composition;
    await expect(service.resume("../../etc/passwd")).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(service.resume("0190a0a0-0000-7000-8000-000000000000")).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(service.create({ cwd: "relative/dir" })).rejects.toMatchObject({
      code: "invalid_input",
    });
    await expect(service.create({ cwd: join(agent.cwd, "missing") })).rejects.toMatchObject({
      code: "invalid_input",
    });
    const id = await (async () => {
      await using handle = await service.create({ cwd: agent.cwd });
      return handle.sessionId;
    })();
    await expect(service.resume(id, { cwd: "/" })).rejects.toMatchObject({ code: "invalid_input" });
    await using again = await service.resume(id, { cwd: agent.cwd });
    expect(again.sessionId).toBe(id);
  });
});
