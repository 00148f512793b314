/**
 * Wrong params, unknown methods and odd ids against the compiled `dsh acp`: each request gets
 * exactly one response with the right code and its own id, and nothing else reaches stdout.
 */
import { describe, expect, test } from "bun:test";
import { createProject } from "./project.ts";
import { type Id, type Wire, spawnRawAcp } from "./raw-acp.ts";

const NO_PARAMS = Symbol("no params");

/** The code of `reply`, or "ok" for a result. */
const outcome = (reply: Wire) => reply.error?.code ?? "ok";

const UUID = "01a229a8-bcd0-7731-b60f-d02555faee2b";

describe.concurrent("dsh acp params", () => {
  test("every method dsh serves refuses missing, null, non-object and wrong-typed params with -32602", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const cwd = project.cwd;
    const shapes = [NO_PARAMS, null, [], "params", 7, {}] as const;
    const cases: [string, unknown][] = [
      ...[
        "session/new",
        "session/load",
        "session/resume",
        "session/close",
        "session/set_config_option",
        "session/prompt",
      ].flatMap((method) => shapes.map((params): [string, unknown] => [method, params])),
      ["initialize", { protocolVersion: "1" }],
      ["initialize", { protocolVersion: -1 }],
      ["initialize", { protocolVersion: 1.5 }],
      ["session/new", { cwd: 42, mcpServers: [] }],
      ["session/new", { cwd, mcpServers: "none" }],
      ["session/new", { cwd, mcpServers: [{ name: "x" }] }],
      ["session/new", { cwd, mcpServers: [], additionalDirectories: "/tmp" }],
      ["session/load", { sessionId: 7, cwd, mcpServers: [] }],
      ["session/load", { sessionId: UUID, cwd: null, mcpServers: [] }],
      ["session/resume", { sessionId: [UUID], cwd }],
      ["session/list", { cwd: 42 }],
      ["session/list", { cursor: {} }],
      ["session/list", [] satisfies unknown[]],
      ["session/close", { sessionId: null }],
      ["session/set_config_option", { sessionId: UUID, configId: 1, value: "x" }],
      ["session/set_config_option", { sessionId: UUID, configId: "model" }],
      ["session/set_config_option", { sessionId: UUID, configId: "model", value: { id: "x" } }],
      ["session/prompt", { sessionId: UUID, prompt: "hello" }],
      ["session/prompt", { sessionId: UUID, prompt: [{ type: "text" }] }],
      ["session/prompt", { sessionId: UUID, prompt: [{ type: "text", text: 5 }] }],
      ["session/prompt", { sessionId: UUID, prompt: [{ type: "bogus", text: "x" }] }],
      [
        "session/prompt",
        { sessionId: UUID, prompt: [{ type: "resource_link", uri: "file:///x" }] },
      ],
    ];
    const replies = await Promise.all(
      cases.map(([method, params]) => dsh.call(method, params === NO_PARAMS ? undefined : params)),
    );
    const unexpected = cases
      .map(([method, params], i) => ({
        method,
        params,
        got: replies[i] === undefined ? "none" : outcome(replies[i]),
      }))
      .filter((c) => c.got !== -32602);
    expect(unexpected).toEqual([]);
    // The SDK's own message, with the failing field in `data`.
    expect(replies[0]?.error).toMatchObject({
      message: "Invalid params",
      data: { cwd: { _errors: ["Invalid input: expected string, received undefined"] } },
    });
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("session/list takes no params, null params or extra fields; a cursor dsh never gave is refused", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const replies = await Promise.all([
      dsh.call("session/list"),
      dsh.call("session/list", null),
      dsh.call("session/list", { cwd: null, cursor: null, extra: [1, 2] }),
      dsh.call("session/list", { cursor: "opaque" }),
    ]);
    expect(replies.map(outcome)).toEqual(["ok", "ok", "ok", -32602]);
    expect(replies[3]?.error?.message).toBe("Invalid params: unknown cursor");
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("extra fields in params are ignored, in the params and in nested objects", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const created = await dsh.call("session/new", {
      cwd: project.cwd,
      mcpServers: [],
      extra: { deep: [1] },
      _meta: { x: 1 },
    });
    const sessionId =
      typeof created.result === "object" && created.result !== null && "sessionId" in created.result
        ? String(created.result.sessionId)
        : "";
    const replies = await Promise.all([
      dsh.call("session/set_config_option", {
        sessionId,
        configId: "permission",
        value: "read-only",
        surprise: true,
      }),
      dsh.call("session/list", { surprise: true }),
    ]);
    expect([outcome(created), ...replies.map(outcome)]).toEqual(["ok", "ok", "ok"]);
    expect((await dsh.call("session/close", { sessionId, surprise: 1 })).result).toEqual({});
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("unknown methods get -32601 naming the method; unknown notifications get nothing", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const methods = [
      "nope",
      "session/set_mode",
      "_dsh/secret",
      "_zed/anything",
      "session/cancel",
      "session/update",
      "$/cancel_request",
      "",
    ];
    const replies = await Promise.all(methods.map((method) => dsh.call(method, {})));
    expect(replies.map((r) => [r.error?.code, r.error?.data])).toEqual(
      methods.map((method) => [-32601, { method }]),
    );
    const before = dsh.messages.length;
    for (const method of [
      "nope",
      "_dsh/ping",
      "_zed/x",
      "session/bogus",
      "session/cancel",
      "$/cancel_request",
      "initialize",
    ]) {
      await dsh.send({ jsonrpc: "2.0", method, params: { sessionId: UUID, requestId: 99 } });
    }
    // A request after them: once it is answered, any reply to the notifications would be out too.
    const last = await dsh.call("session/list", {});
    expect(dsh.messages.slice(before)).toEqual([last]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("a request for an unknown session gets -32002 naming it; a cancel for one is ignored", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    await dsh.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: UUID } });
    // One at a time: while a load of the id runs, other requests for it are told it is loading.
    const replies = [
      await dsh.call("session/prompt", { sessionId: UUID, prompt: [{ type: "text", text: "hi" }] }),
      await dsh.call("session/set_config_option", {
        sessionId: UUID,
        configId: "model",
        value: "x",
      }),
      await dsh.call("session/close", { sessionId: UUID }),
      await dsh.call("session/load", { sessionId: UUID, cwd: project.cwd, mcpServers: [] }),
      await dsh.call("session/resume", { sessionId: UUID, cwd: project.cwd }),
    ];
    expect(replies.map((r) => [r.error?.code, r.error?.data])).toEqual(
      replies.map(() => [-32002, expect.objectContaining({ sessionId: UUID, code: "not_found" })]),
    );
    expect(replies[0]?.error?.message).toBe(
      `Resource not found: no live session ${UUID} on this connection`,
    );
    expect(replies[3]?.error?.message).toBe(`Resource not found: no session ${UUID}`);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("ids of every JSON-RPC type are echoed exactly; ids of other types get -32600 with a null id", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const ids: Id[] = ["abc", "", "ünï-☃-𝄞", "0", 0, -1, 2 ** 53 - 1, 1.5, 1e300, null];
    for (const id of ids) {
      // One at a time: a null-id reply can only be told apart by its order.
      const reply = await dsh.call("session/list", {}, id);
      expect(reply).toEqual({ jsonrpc: "2.0", id, result: { sessions: [] } });
    }
    const errorReply = await dsh.call("session/prompt", {}, "err-id");
    expect([errorReply.id, errorReply.error?.code]).toEqual(["err-id", -32602]);
    const before = dsh.messages.length;
    for (const id of [true, { a: 1 }, [1]])
      await dsh.send({ jsonrpc: "2.0", id, method: "session/list", params: {} });
    await dsh.waitFor((m) => dsh.messages.indexOf(m) >= before + 2);
    expect(dsh.messages.slice(before).map((m) => [m.id, m.error?.code])).toEqual([
      [null, -32600],
      [null, -32600],
      [null, -32600],
    ]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });
});
