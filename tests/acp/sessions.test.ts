import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { availableCommandsUpdate } from "../../src/acp/commands.ts";
import { silentLogger } from "../../src/log.ts";
import { createSessionStore } from "../../src/session/store.ts";
import { rejection, startAcpFixture } from "../support/acp-fixture.ts";
import { startAcpHarness, zedInitialize } from "../support/acp-harness.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";

const m = acp.methods.agent.session;

describe("initialize", () => {
  test("answers protocol version 1 whatever the client asks, with dsh's capabilities", async () => {
    await using f = await startAcpFixture();
    const again = await f.h.agent.request(acp.methods.agent.initialize, { protocolVersion: 2 });
    expect(again).toEqual({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: true },
        // `fork` is the unstable schema's, which the stable types do not name.
        sessionCapabilities: {
          list: {},
          close: {},
          resume: {},
          delete: {},
          additionalDirectories: {},
          ...{ fork: {} },
        },
        mcpCapabilities: { http: true, sse: true },
        auth: { logout: {} },
      },
      agentInfo: { name: "dsh", title: "dsh", version: "0.0.0-test" },
      authMethods: [
        {
          id: "dsh-login",
          name: "Log in with an API key",
          description:
            "Run `dsh login` in a terminal, or set DSH_API_KEY in the agent's environment",
        },
      ],
    });
    // The fixture initialized as Zed does, with terminal auth: the same, but a terminal method.
    expect(f.initialize).toEqual({
      ...again,
      authMethods: [
        {
          id: "dsh-login",
          name: "Log in with an API key",
          description:
            "Paste your DeepSeek (or OpenAI-compatible) API key; dsh checks and stores it",
          type: "terminal",
          args: ["--login"],
        },
      ],
    });
    expect(f.h.problems).toEqual([]);
  });
});

describe("session/new", () => {
  test("a relative, missing or non-directory cwd is invalid params and creates nothing", async () => {
    await using f = await startAcpFixture();
    const file = join(f.agent.cwd, "file.txt");
    writeFileSync(file, "x");
    const codes = [];
    for (const cwd of ["project", join(f.agent.cwd, "missing"), file]) {
      codes.push((await rejection(f.h.agent.request(m.new, { cwd, mcpServers: [] }))).code);
    }
    expect(codes).toEqual([-32602, -32602, -32602]);
    const sessions = join(f.agent.home, "sessions");
    expect(existsSync(sessions) ? readdirSync(sessions) : []).toEqual([]);
  });

  test("answers with the config options, then sends only the command list", async () => {
    await using f = await startAcpFixture({ env: { DSH_PERMISSION: "read-only" } });
    const created = await f.h.agent.request(m.new, {
      cwd: f.agent.cwd,
      mcpServers: [
        { name: "ctx", command: "/bin/false", args: [], env: [{ name: "TOKEN", value: "secret" }] },
      ],
    });
    expect(created.configOptions?.map((o) => [o.id, o.currentValue])).toEqual([
      ["permission", "read-only"],
      ["model", expect.any(String)],
      ...(created.configOptions?.length === 3 ? [["effort", expect.any(String)]] : []),
    ]);
    await f.h.waitForUpdate(
      created.sessionId,
      (u) => u.sessionUpdate === "available_commands_update",
    );
    await f.h.disconnect();
    expect(f.h.sent.filter((msg) => msg.method === "session/update")).toEqual([
      {
        jsonrpc: "2.0",
        method: "session/update",
        params: { sessionId: created.sessionId, update: availableCommandsUpdate() },
      },
    ]);
    expect(f.h.problems).toEqual([]);
  });
});

describe("session/set_config_option", () => {
  test("applies a preset and answers the full list; unknown ids and values are invalid params", async () => {
    await using f = await startAcpFixture();
    const { sessionId, configOptions } = await f.newSession();
    const changed = await f.h.agent.request(m.setConfigOption, {
      sessionId,
      configId: "permission",
      value: "read-only",
    });
    expect(changed.configOptions.map((o) => o.id)).toEqual(configOptions?.map((o) => o.id) ?? []);
    expect(changed.configOptions[0]).toMatchObject({ id: "permission", currentValue: "read-only" });
    const codes = [];
    for (const [configId, value] of [
      ["permission", "custom"],
      ["model", "no-such-model"],
      ["colour", "red"],
    ]) {
      codes.push(
        (
          await rejection(
            f.h.agent.request(m.setConfigOption, {
              sessionId,
              configId: configId ?? "",
              value: value ?? "",
            }),
          )
        ).code,
      );
    }
    expect(codes).toEqual([-32602, -32602, -32602]);
    expect(f.h.problems).toEqual([]);
  });
});

describe("session/list and session/close", () => {
  test("lists this home's sessions, filtered by cwd", async () => {
    await using f = await startAcpFixture();
    const other = join(f.agent.cwd, "sub");
    mkdirSync(other);
    const a = await f.newSession();
    const b = await f.newSession(other);
    f.model.script(textTurn("ok"));
    await f.prompt(a.sessionId, "first question");
    const all = await f.h.agent.request(m.list, {});
    expect(all.sessions.map((s) => s.sessionId).sort()).toEqual([a.sessionId, b.sessionId].sort());
    const here = await f.h.agent.request(m.list, { cwd: f.agent.cwd });
    expect(here.sessions).toEqual([
      {
        sessionId: a.sessionId,
        cwd: f.agent.cwd,
        title: "first question",
        updatedAt: expect.any(String),
      },
    ]);
    expect((await rejection(f.h.agent.request(m.list, { cursor: "x" }))).code).toBe(-32602);
    expect(f.h.problems).toEqual([]);
  });

  test("a closed session takes no more prompts", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    expect(await f.h.agent.request(m.close, { sessionId })).toEqual({});
    expect((await rejection(f.prompt(sessionId, "hi"))).code).toBe(-32002);
  });
});

describe("session/load", () => {
  test("replays the transcript on a new connection before answering with the config options", async () => {
    await using f = await startAcpFixture({ terminalOutput: false });
    const { sessionId } = await f.newSession();
    f.model.script(
      toolTurn([{ id: "w1", name: "write_file", args: { path: "a.txt", content: "A\n" } }], {
        reasoning: "plan",
      }),
      textTurn("Wrote it."),
    );
    await f.prompt(sessionId, "write a.txt");
    await f.h.disconnect();

    await using h = startAcpHarness({
      service: f.agent.composition.service,
      models: f.agent.composition.models,
    });
    await h.agent.request(acp.methods.agent.initialize, zedInitialize(false));
    const loaded = await h.agent.request(m.load, { sessionId, cwd: f.agent.cwd, mcpServers: [] });
    const replayed = h.updates(sessionId);
    const path = join(f.agent.cwd, "a.txt");
    expect(replayed).toEqual([
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "write a.txt" } },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "plan" } },
      expect.objectContaining({
        sessionUpdate: "tool_call",
        toolCallId: "w1",
        kind: "edit",
        rawInput: { path: "a.txt", content: "A\n" },
        locations: [{ path }],
      }),
      expect.objectContaining({
        sessionUpdate: "tool_call_update",
        toolCallId: "w1",
        status: "completed",
        content: [{ type: "diff", path, oldText: null, newText: "A\n" }],
      }),
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Wrote it." } },
      // The context meter as the last request left it, and the session's cost so far.
      {
        sessionUpdate: "usage_update",
        used: 15,
        size: 1_048_576,
        cost: { amount: expect.any(Number), currency: "USD" },
      },
      availableCommandsUpdate(),
    ]);
    expect(loaded.configOptions?.[0]).toMatchObject({
      id: "permission",
      currentValue: "workspace-write",
    });
    // Every replayed update precedes the response.
    const answered = h.sent.findIndex(
      (msg) => msg.result !== undefined && JSON.stringify(msg.result).includes("configOptions"),
    );
    expect(h.sent.slice(answered).filter((msg) => msg.method === "session/update")).toEqual([]);
    // The loaded session takes prompts.
    f.model.script(textTurn("again"));
    expect(
      await h.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text: "more" }] }),
    ).toEqual({ stopReason: "end_turn" });
    await h.disconnect();
    expect(h.problems).toEqual([]);
  });

  test("a long transcript replays whole and in order, every update before the response", async () => {
    await using f = await startAcpFixture();
    const store = createSessionStore({ home: f.agent.home, logger: silentLogger });
    const turns = 700;
    const sessionId = await (async () => {
      await using log = await store.create({ cwd: f.agent.cwd });
      for (let i = 0; i < turns; i++) {
        const turnId = `t${i}`;
        log.append({ type: "turn_start", turnId });
        log.append({ type: "user_message", turnId, content: [{ type: "text", text: `q${i}` }] });
        log.append({ type: "assistant_text", turnId, step: 1, text: `a${i}` });
        log.append({ type: "turn_end", turnId, reason: "end_turn" });
      }
      return log.header.id;
    })();
    await f.h.agent.request(m.load, { sessionId, cwd: f.agent.cwd, mcpServers: [] });
    const text = (
      kind: "user_message_chunk" | "agent_message_chunk",
      t: string,
    ): acp.SessionUpdate => ({ sessionUpdate: kind, content: { type: "text", text: t } });
    const expected = Array.from({ length: turns }, (_, i) => [
      text("user_message_chunk", `q${i}`),
      text("agent_message_chunk", `a${i}`),
    ]).flat();
    expect(f.h.updates(sessionId)).toEqual([...expected, availableCommandsUpdate()]);
    const answered = f.h.sent.findIndex(
      (msg) => msg.result !== undefined && JSON.stringify(msg.result).includes("configOptions"),
    );
    const after = f.h.sent.slice(answered).filter((msg) => msg.method === "session/update");
    expect(after).toEqual([]);
  });

  test("hostile ids are invalid params and touch no file; unknown ids are not found; another cwd is invalid", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    await f.h.agent.request(m.close, { sessionId });
    const log = readFileSync(join(f.agent.home, "sessions", `${sessionId}.jsonl`), "utf8");
    // A copy one level up: a store that joined the id into a path would find it.
    writeFileSync(join(f.agent.home, "evil.jsonl"), log.replace(sessionId, "../evil"));
    const load = (id: string, cwd = f.agent.cwd) =>
      rejection(f.h.agent.request(m.load, { sessionId: id, cwd, mcpServers: [] }));
    const hostile = [];
    for (const id of ["../evil", "/etc/passwd", "..", "a/b", `${sessionId}\0`, ""])
      hostile.push((await load(id)).code);
    expect(hostile).toEqual([-32602, -32602, -32602, -32602, -32602, -32602]);
    expect((await load("0190f5a2-0000-7000-8000-000000000000")).code).toBe(-32002);
    expect((await load(sessionId, join(f.agent.cwd, ".."))).code).toBe(-32602);
    expect((await load(sessionId, "relative/dir")).code).toBe(-32602);
    expect(f.h.problems).toEqual([]);
  });

  test("the id is reserved while a load runs: a second load of it meanwhile is refused", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    await f.h.agent.request(m.close, { sessionId });
    const params = { sessionId, cwd: f.agent.cwd, mcpServers: [] };
    const [one, two] = await Promise.allSettled([
      f.h.agent.request(m.load, params),
      f.h.agent.request(m.load, params),
    ]);
    const outcomes = [one.status, two.status].sort();
    expect(outcomes).toEqual(["fulfilled", "rejected"]);
    const refused =
      one.status === "rejected" ? one.reason : two.status === "rejected" ? two.reason : undefined;
    expect(refused).toBeInstanceOf(acp.RequestError);
    expect(refused instanceof acp.RequestError ? refused.code : 0).toBe(-32600);
  });

  test("loading a session already live on the connection replays it again", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    f.model.script(textTurn("hi back"));
    await f.prompt(sessionId, "hi");
    const before = f.h.updates(sessionId).length;
    await f.h.agent.request(m.load, { sessionId, cwd: f.agent.cwd, mcpServers: [] });
    expect(f.h.updates(sessionId).slice(before)).toEqual([
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "hi" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi back" } },
      expect.objectContaining({ sessionUpdate: "usage_update", used: 15 }),
      availableCommandsUpdate(),
    ]);
  });

  test("session/resume reopens without replaying", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    f.model.script(textTurn("hi back"));
    await f.prompt(sessionId, "hi");
    await f.h.agent.request(m.close, { sessionId });
    const before = f.h.updates(sessionId).length;
    const resumed = await f.h.agent.request(m.resume, { sessionId, cwd: f.agent.cwd });
    expect(resumed.configOptions?.length).toBeGreaterThan(1);
    expect(f.h.updates(sessionId).slice(before)).toEqual([availableCommandsUpdate()]);
  });
});

describe("lifecycle", () => {
  test("a disconnect mid-turn cancels the turn, logs its end and lets the server return", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    const never = Promise.withResolvers<void>();
    f.model.script({ respond: { stream: [{ text: "partial" }, { until: never.promise }] } });
    const prompt = f.prompt(sessionId, "long");
    prompt.catch(() => undefined);
    await f.h.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk");
    await f.h.disconnect();
    await f.model.aborted(0);
    const lines = readFileSync(join(f.agent.home, "sessions", `${sessionId}.jsonl`), "utf8")
      .trim()
      .split("\n");
    const last: unknown = JSON.parse(lines.at(-1) ?? "{}");
    expect(last).toMatchObject({ type: "turn_end", reason: "cancelled" });
    expect(f.h.problems).toEqual([]);
  });

  test("the shutdown signal answers running prompts cancelled, then closes", async () => {
    const shutdown = new AbortController();
    await using f = await startAcpFixture({ signal: shutdown.signal });
    const { sessionId } = await f.newSession();
    const never = Promise.withResolvers<void>();
    f.model.script({ respond: { stream: [{ until: never.promise }] } });
    const prompt = f.prompt(sessionId, "long");
    await f.model.received(0);
    shutdown.abort();
    expect(await prompt).toEqual({ stopReason: "cancelled" });
    await f.h.done;
    expect(f.h.problems).toEqual([]);
  });
});
