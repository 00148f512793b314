/**
 * MCP servers as an editor meets them, through the compiled `dsh acp` over real pipes: the
 * test stdio server (a real process) and the HTTP one (a real `Bun.serve`), both built with
 * the official SDK, passed in `session/new`, `session/load` and `session/resume`.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { zedInitialize } from "../support/acp-harness.ts";
import { type AcpProcessOptions, spawnAcp } from "../support/acp-process.ts";
import { startMcpHttpServer } from "../support/mcp-http-server.ts";
import { type ModelServer, startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import {
  badServer,
  isRunning,
  processesWithArgument,
  offeredSchema,
  offeredTools,
  serverLog,
  stdioServer,
  toolMessages,
} from "./rig.ts";

const m = acp.methods.agent.session;
const allow: AcpProcessOptions["onPermission"] = () => ({
  outcome: { outcome: "selected", optionId: "allow" },
});

async function start(model: ModelServer, options: Partial<AcpProcessOptions> = {}) {
  const dsh = await spawnAcp({ baseUrl: model.url, ...options });
  await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(false));
  const prompt = (sessionId: string, text: string) =>
    dsh.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text }] });
  const answer = (sessionId: string) =>
    dsh.updates
      .filter((n) => n.sessionId === sessionId)
      .flatMap((n) =>
        n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text"
          ? [n.update.content.text]
          : [],
      )
      .join("");
  return { dsh, prompt, answer, log: (name: string) => join(dsh.cwd, "..", `${name}.log`) };
}

describe("dsh acp with MCP servers", () => {
  test("a stdio and an HTTP server's tools are offered by name and schema after the core tools", async () => {
    await using model = await startModelServer();
    await using http = startMcpHttpServer("web");
    const { dsh, prompt, log } = await start(model);
    await using _ = dsh;
    const plain = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    const { sessionId } = await dsh.agent.request(m.new, {
      cwd: dsh.cwd,
      mcpServers: [
        stdioServer("local", { MCP_TEST_LOG: log("local") }),
        { type: "http", name: "web", url: http.url, headers: [{ name: "X-Test", value: "yes" }] },
      ],
    });
    model.script(textTurn("plain"), textTurn("with servers"));
    await prompt(plain.sessionId, "hi");
    await prompt(sessionId, "hi");
    const [without, withServers] = model.requests;
    const core = offeredTools(without);
    const perServer = ["echo", "structured", "picture", "fail", "wait", "grow"];
    expect(offeredTools(withServers)).toEqual([
      ...core,
      ...[...perServer, "dotted_name_with_spaces_6bca960b"].map((tool) => `mcp__local__${tool}`),
      ...perServer.map((tool) => `mcp__web__${tool}`),
    ]);
    // The core tools' definitions are byte for byte those of a session without servers.
    const tools = (request: typeof without) => JSON.stringify(request?.body.tools);
    expect(tools(withServers).startsWith(tools(without).slice(0, -1))).toBe(true);
    expect(offeredSchema(withServers, "mcp__local__echo")).toEqual({
      type: "object",
      properties: { text: { type: "string", description: "what to say" } },
      required: ["text"],
    });
    expect(offeredSchema(withServers, "mcp__local__dotted_name_with_spaces_6bca960b")).toEqual({
      type: "object",
      properties: {
        filter: {
          type: "object",
          properties: {
            kind: { type: "string", enum: ["a", "b"] },
            limit: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 },
          },
          required: ["kind"],
        },
      },
      required: ["filter"],
    });
    expect(http.headers.every((h) => h["x-test"] === "yes")).toBe(true);
    expect(dsh.problems).toEqual([]);
  });

  test("calls run once allowed, and their results reach the next model request as text", async () => {
    await using model = await startModelServer();
    await using http = startMcpHttpServer("web");
    const { dsh, prompt, log } = await start(model, { onPermission: allow });
    await using _ = dsh;
    const { sessionId } = await dsh.agent.request(m.new, {
      cwd: dsh.cwd,
      mcpServers: [
        stdioServer("local", { MCP_TEST_LOG: log("local") }),
        { type: "http", name: "web", url: http.url, headers: [] },
      ],
    });
    model.script(
      toolTurn([
        { id: "c1", name: "mcp__local__echo", args: { text: "hello" } },
        { id: "c2", name: "mcp__web__echo", args: { text: "there" } },
        { id: "c3", name: "mcp__local__structured", args: {} },
        { id: "c4", name: "mcp__local__picture", args: {} },
        { id: "c5", name: "mcp__web__fail", args: {} },
      ]),
      textTurn("done"),
    );
    expect(await prompt(sessionId, "use the tools")).toEqual({ stopReason: "end_turn" });
    expect(toolMessages(model.requests[1])).toEqual({
      c1: "echo from local: hello",
      c2: "echo from web: there",
      c3: JSON.stringify({ answer: 42 }, null, 2),
      c4: "a picture follows\n[image: image/png, 70 bytes]",
      c5: "it broke on purpose",
    });
    expect(serverLog(log("local")).calls.map((c) => c.tool)).toEqual([
      "echo",
      "structured",
      "picture",
    ]);
    expect(http.calls.map((c) => c.tool)).toEqual(["echo", "fail"]);
    const failed = dsh.updates.find(
      (n) =>
        n.update.sessionUpdate === "tool_call_update" &&
        n.update.toolCallId === "c5" &&
        n.update.status !== undefined &&
        n.update.status !== "in_progress",
    );
    expect(failed?.update).toMatchObject({ status: "failed" });
    const call = dsh.updates.find(
      (n) => n.update.sessionUpdate === "tool_call" && n.update.toolCallId === "c1",
    );
    expect(call?.update).toMatchObject({ title: "Echo", kind: "read", status: "pending" });
    expect(dsh.problems).toEqual([]);
  });

  test("under workspace-write every call asks, and a rejected call never reaches the server", async () => {
    await using model = await startModelServer();
    const asked: acp.RequestPermissionRequest[] = [];
    const { dsh, prompt, log } = await start(model, {
      onPermission: (params) => {
        asked.push(params);
        return { outcome: { outcome: "selected", optionId: "reject" } };
      },
    });
    await using _ = dsh;
    const { sessionId } = await dsh.agent.request(m.new, {
      cwd: dsh.cwd,
      mcpServers: [stdioServer("local", { MCP_TEST_LOG: log("local") })],
    });
    model.script(
      toolTurn([{ id: "r1", name: "mcp__local__echo", args: { text: "secret plans" } }]),
      textTurn("ok"),
    );
    expect(await prompt(sessionId, "echo")).toEqual({ stopReason: "end_turn" });
    expect(asked.map((a) => [a.toolCall.toolCallId, a.toolCall.title])).toEqual([["r1", "Echo"]]);
    expect(toolMessages(model.requests[1]).r1).toBe(
      "the user rejected calling echo on the MCP server local; it did not run",
    );
    expect(serverLog(log("local")).calls).toEqual([]);
    expect(dsh.problems).toEqual([]);
  });

  test("under danger-full-access nothing asks", async () => {
    await using model = await startModelServer();
    const { dsh, prompt, log } = await start(model, {
      env: { DSH_PERMISSION: "danger-full-access" },
    });
    await using _ = dsh;
    const { sessionId } = await dsh.agent.request(m.new, {
      cwd: dsh.cwd,
      mcpServers: [stdioServer("local", { MCP_TEST_LOG: log("local") })],
    });
    model.script(
      toolTurn([{ id: "n1", name: "mcp__local__echo", args: { text: "go" } }]),
      textTurn("ok"),
    );
    expect(await prompt(sessionId, "echo")).toEqual({ stopReason: "end_turn" });
    expect(dsh.lines.some((line) => line.includes('"session/request_permission"'))).toBe(false);
    expect(serverLog(log("local")).calls).toEqual([{ tool: "echo", args: { text: "go" } }]);
  });

  test("a stdio server gets the scrubbed environment plus its own env, never dsh's secrets", async () => {
    await using model = await startModelServer();
    const { dsh, prompt, log } = await start(model, {
      apiKey: "sk-dsh-secret",
      env: { GITHUB_TOKEN: "parent-token", DEEPSEEK_API_KEY: "sk-other", LANG: "C.UTF-8" },
    });
    await using _ = dsh;
    const { sessionId } = await dsh.agent.request(m.new, {
      cwd: dsh.cwd,
      mcpServers: [
        stdioServer("local", {
          MCP_TEST_LOG: log("local"),
          SERVER_TOKEN: "given-to-server",
          DSH_API_KEY: "smuggled",
        }),
      ],
    });
    model.script(textTurn("ok"));
    await prompt(sessionId, "hi");
    const [started] = serverLog(log("local")).starts;
    const env = started?.env ?? {};
    expect(env.SERVER_TOKEN).toBe("given-to-server");
    expect(env.LANG).toBe("C.UTF-8");
    expect(env.PWD).toBe(dsh.cwd);
    const leaked = Object.entries(env).filter(([, value]) =>
      ["sk-dsh-secret", "parent-token", "sk-other", "smuggled"].includes(value),
    );
    expect(leaked).toEqual([]);
  });

  test("the server's process group is gone after session/close and after stdin EOF", async () => {
    await using model = await startModelServer();
    const { dsh, prompt, log } = await start(model);
    await using _ = dsh;
    const open = async (name: string) => {
      const { sessionId } = await dsh.agent.request(m.new, {
        cwd: dsh.cwd,
        mcpServers: [stdioServer(name, { MCP_TEST_LOG: log(name) })],
      });
      model.script(textTurn("ok"));
      await prompt(sessionId, "hi");
      const [started] = serverLog(log(name)).starts;
      if (started === undefined) throw new Error(`${name} did not start`);
      return { sessionId, pids: [started.started, started.child] };
    };
    const closed = await open("first");
    const ended = await open("second");
    expect([...closed.pids, ...ended.pids].map(isRunning)).toEqual([true, true, true, true]);
    await dsh.agent.request(m.close, { sessionId: closed.sessionId });
    expect(closed.pids.map(isRunning)).toEqual([false, false]);
    expect(ended.pids.map(isRunning)).toEqual([true, true]);
    expect((await dsh.closeStdin()).code).toBe(0);
    expect(ended.pids.map(isRunning)).toEqual([false, false]);
    // One process per server per session: each started once.
    expect([serverLog(log("first")).starts.length, serverLog(log("second")).starts.length]).toEqual(
      [1, 1],
    );
  });

  test("a session closed while its server starts, and dsh stopped by SIGTERM, leave no server behind", async () => {
    await using model = await startModelServer();
    const { dsh, prompt } = await start(model);
    await using _ = dsh;
    const early = `early-${crypto.randomUUID()}`;
    const { sessionId } = await dsh.agent.request(m.new, {
      cwd: dsh.cwd,
      mcpServers: [stdioServer(early)],
    });
    await dsh.agent.request(m.close, { sessionId });
    expect(processesWithArgument(early)).toEqual([]);

    const late = `late-${crypto.randomUUID()}`;
    const second = await dsh.agent.request(m.new, {
      cwd: dsh.cwd,
      mcpServers: [stdioServer(late)],
    });
    model.script(textTurn("ok"));
    await prompt(second.sessionId, "hi");
    // The server runs (its supervisor, where there is one, carries the same arguments).
    expect(processesWithArgument(late).length).toBeGreaterThan(0);
    dsh.proc.kill("SIGTERM");
    expect(await dsh.proc.exited).toBe(0);
    expect(processesWithArgument(late)).toEqual([]);
  });

  test("a missing command and a server that exits at once leave the session usable and say so, once", async () => {
    await using model = await startModelServer();
    const { dsh, prompt, answer } = await start(model);
    await using _ = dsh;
    const { sessionId } = await dsh.agent.request(m.new, {
      cwd: dsh.cwd,
      mcpServers: [
        { name: "missing", command: "/nonexistent/mcp-server", args: [], env: [] },
        badServer("quitter", "exit"),
      ],
    });
    model.script(textTurn("still here"), textTurn("and again"));
    expect(await prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
    const text = answer(sessionId);
    expect(
      text
        .split("\n")
        .filter((line) => line.startsWith(">"))
        .sort(),
    ).toEqual([
      "> MCP server missing did not start: command not found: /nonexistent/mcp-server; its tools are not available",
      "> MCP server quitter did not start: the server exited with code 3: config missing: cannot start; its tools are not available",
    ]);
    expect(text.endsWith("still here")).toBe(true);
    const offered = offeredTools(model.requests[0]);
    expect([offered.includes("bash"), offered.some((t) => t.startsWith("mcp__"))]).toEqual([
      true,
      false,
    ]);
    // Told once: the second answer has no notice.
    expect(await prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" });
    expect(answer(sessionId).slice(text.length)).toBe("and again");
    expect(dsh.problems).toEqual([]);
  });

  test("a server that never answers initialize is given up after mcp_startup_timeout_ms, its group stopped", async () => {
    await using model = await startModelServer();
    const { dsh, prompt, answer, log } = await start(model, {
      configToml: "mcp_startup_timeout_ms = 1000\n",
    });
    await using _ = dsh;
    const { sessionId } = await dsh.agent.request(m.new, {
      cwd: dsh.cwd,
      mcpServers: [badServer("mute", "silent", { MCP_TEST_LOG: log("mute") })],
    });
    model.script(textTurn("went on"));
    expect(await prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
    expect(answer(sessionId)).toBe(
      "\n> MCP server mute did not start: it did not start within 1000 ms; its tools are not available\n\nwent on",
    );
    const [mute] = serverLog(log("mute")).starts;
    expect(mute === undefined ? [] : [mute.started, mute.child].map(isRunning)).toEqual([
      false,
      false,
    ]);
    expect(dsh.problems).toEqual([]);
  });

  test("servers passed in session/load and session/resume start too", async () => {
    await using model = await startModelServer();
    const { dsh, prompt, log } = await start(model);
    await using _ = dsh;
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    model.script(textTurn("one"));
    await prompt(sessionId, "hi");
    await dsh.agent.request(m.close, { sessionId });
    await dsh.agent.request(m.load, {
      sessionId,
      cwd: dsh.cwd,
      mcpServers: [stdioServer("loaded", { MCP_TEST_LOG: log("loaded") })],
    });
    model.script(textTurn("two"));
    await prompt(sessionId, "hi");
    await dsh.agent.request(m.close, { sessionId });
    await dsh.agent.request(m.resume, {
      sessionId,
      cwd: dsh.cwd,
      mcpServers: [stdioServer("resumed", { MCP_TEST_LOG: log("resumed") })],
    });
    model.script(textTurn("three"));
    await prompt(sessionId, "hi");
    const mcpTools = (n: number) =>
      offeredTools(model.requests[n]).filter((name) => name.endsWith("__echo"));
    expect([mcpTools(0), mcpTools(1), mcpTools(2)]).toEqual([
      [],
      ["mcp__loaded__echo"],
      ["mcp__resumed__echo"],
    ]);
  });

  test("ten sessions with one server each keep their tools apart", async () => {
    await using model = await startModelServer();
    const { dsh, prompt } = await start(model);
    await using _ = dsh;
    const names = Array.from({ length: 10 }, (_, i) => `s${i}`);
    // HTTP servers: ten real servers cost the test little, where ten processes would be slow.
    const servers = names.map((name) => startMcpHttpServer(name));
    await using _servers = {
      async [Symbol.asyncDispose]() {
        await Promise.all(servers.map((x) => x[Symbol.asyncDispose]()));
      },
    };
    const sessions = await Promise.all(
      names.map((name, i) =>
        dsh.agent.request(m.new, {
          cwd: dsh.cwd,
          mcpServers: [{ type: "http", name, url: servers[i]?.url ?? "", headers: [] }],
        }),
      ),
    );
    model.script(...names.map(() => textTurn("ok")));
    await Promise.all(sessions.map(({ sessionId }) => prompt(sessionId, "which tools?")));
    // Each request offers one server's tools, and every server's tools reach one request.
    const offered = model.requests.map((request) =>
      offeredTools(request).filter((name) => name.startsWith("mcp__")),
    );
    const owners = offered.map((tools) => [...new Set(tools.map((t) => t.split("__")[1]))]);
    expect(owners.map((o) => o.length)).toEqual(names.map(() => 1));
    expect(owners.flat().sort()).toEqual([...names].sort());
    expect(offered.every((tools) => tools.length === 6)).toBe(true);
  });
});
