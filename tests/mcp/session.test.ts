/**
 * A session's MCP servers behind the real composition (in process): config-file servers,
 * a name clash with the editor's, tool lists that change, calls that are cancelled or time
 * out, and a server that dies while the session lives on.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentHandle, LiveEvent } from "../../src/agent/types.ts";
import { createTestAgent } from "../support/agent.ts";
import { nextEvent } from "../support/live-events.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import {
  STDIO_SERVER,
  isRunning,
  offeredTools,
  serverLog,
  stdioTable,
  toolMessages,
} from "./rig.ts";

const FULL_ACCESS = { DSH_PERMISSION: "danger-full-access" };

/** Resolves once `condition` holds; for states that change without an event (a process dies). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

function tempDir() {
  const path = mkdtempSync(join(tmpdir(), "dsh-mcp-"));
  return {
    path,
    [Symbol.asyncDispose]: async () => rmSync(path, { recursive: true, force: true }),
  };
}

function collect(handle: AgentHandle): LiveEvent[] {
  const events: LiveEvent[] = [];
  void (async () => {
    for await (const event of handle.events()) events.push(event);
  })();
  return events;
}

const text = (value: string) => [{ type: "text" as const, text: value }];

describe("a session's MCP servers", () => {
  test("the config file's servers start; the editor's entry wins a name clash; disabled ones never start", async () => {
    await using model = await startModelServer();
    await using logs = tempDir();
    const cfgLog = join(logs.path, "config.log");
    const editorLog = join(logs.path, "editor.log");
    await using configured = createTestAgent({
      baseUrl: model.url,
      env: FULL_ACCESS,
      configToml: [
        stdioTable("shared", { MCP_TEST_LOG: cfgLog }),
        stdioTable("own", { MCP_TEST_LOG: cfgLog }),
        `${stdioTable("off", { MCP_TEST_LOG: cfgLog })}enabled = false\n`,
      ].join("\n"),
    });
    await using handle = await configured.composition.service.create({
      cwd: configured.cwd,
      mcpServers: [
        {
          transport: "stdio",
          name: "shared",
          command: process.execPath,
          args: [STDIO_SERVER, "shared"],
          env: { MCP_TEST_LOG: editorLog },
        },
      ],
    });
    expect(handle.mcpServers().map((s) => [s.name, s.state])).toEqual([
      ["shared", "starting"],
      ["own", "starting"],
    ]);
    model.script(textTurn("ok"));
    await handle.prompt(text("hi"), new AbortController().signal);
    expect(handle.mcpServers()).toEqual([
      { name: "shared", state: "ready", tools: 7 },
      { name: "own", state: "ready", tools: 7 },
    ]);
    expect([serverLog(cfgLog).starts.length, serverLog(editorLog).starts.length]).toEqual([1, 1]);
    expect(offeredTools(model.requests[0]).filter((t) => t.endsWith("__echo"))).toEqual([
      "mcp__shared__echo",
      "mcp__own__echo",
    ]);
  });

  test("a tool the server adds mid-turn is offered in the very next request", async () => {
    await using model = await startModelServer();
    await using agent = createTestAgent({
      baseUrl: model.url,
      env: FULL_ACCESS,
      configToml: stdioTable("t"),
    });
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    model.script(
      toolTurn([{ id: "g", name: "mcp__t__grow", args: {} }]),
      toolTurn([{ id: "l", name: "mcp__t__late", args: {} }]),
      textTurn("done"),
    );
    expect((await handle.prompt(text("grow"), new AbortController().signal)).reason).toBe(
      "end_turn",
    );
    const has = (n: number) => offeredTools(model.requests[n]).includes("mcp__t__late");
    expect([has(0), has(1)]).toEqual([false, true]);
    expect(toolMessages(model.requests[2]).l).toBe("late tool ran");
    expect(handle.mcpServers()[0]?.tools).toBe(8);
  });

  test("a cancel stops a running MCP call; a call past the tool timeout fails readably", async () => {
    await using model = await startModelServer();
    await using agent = createTestAgent({
      baseUrl: model.url,
      env: FULL_ACCESS,
      configToml: `mcp_tool_timeout_ms = 300\n${stdioTable("t")}`,
    });
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    model.script(toolTurn([{ id: "w1", name: "mcp__t__wait", args: {} }]), textTurn("after"));
    expect((await handle.prompt(text("wait"), new AbortController().signal)).reason).toBe(
      "end_turn",
    );
    expect(toolMessages(model.requests[1]).w1).toBe("the MCP tool did not answer within 300 ms");

    model.script(toolTurn([{ id: "w2", name: "mcp__t__wait", args: {} }]));
    const controller = new AbortController();
    const started = nextEvent(handle, (e) => e.type === "tool_start" && e.callId === "w2");
    const running = handle.prompt(text("wait again"), controller.signal);
    await started;
    controller.abort();
    expect((await running).reason).toBe("cancelled");
  });

  test("a server that dies is reported once, in the next turn; its tools are withdrawn and its group stopped", async () => {
    await using model = await startModelServer();
    await using logs = tempDir();
    const log = join(logs.path, "dying.log");
    await using again = createTestAgent({
      baseUrl: model.url,
      env: FULL_ACCESS,
      configToml: stdioTable("t", { MCP_TEST_LOG: log }),
    });
    await using handle = await again.composition.service.create({ cwd: again.cwd });
    const events = collect(handle);
    model.script(textTurn("one"), textTurn("two"), textTurn("three"));
    await handle.prompt(text("one"), new AbortController().signal);
    const [started] = serverLog(log).starts;
    if (started === undefined) throw new Error("the server did not start");
    process.kill(started.started, "SIGKILL");
    await until(() => handle.mcpServers()[0]?.state === "failed");
    await handle.prompt(text("two"), new AbortController().signal);
    await handle.prompt(text("three"), new AbortController().signal);
    const notices = events.filter((e) => e.type === "notice");
    // The reason ends with the server's last stderr line, whatever it was.
    expect(
      notices.map((n) =>
        n.type === "notice"
          ? [
              n.title,
              /^the server was killed by SIGKILL(: .*)?; its tools are not available$/.test(
                n.description ?? "",
              ),
            ]
          : [],
      ),
    ).toEqual([["MCP server t stopped", true]]);
    const turnOfNotice = notices[0]?.turnId;
    const secondTurn = events.find(
      (e) =>
        e.type === "turn_start" && e.content[0]?.type === "text" && e.content[0].text === "two",
    );
    expect(turnOfNotice).toBe(secondTurn?.type === "turn_start" ? secondTurn.turnId : "none");
    expect(offeredTools(model.requests[1]).some((t) => t.startsWith("mcp__"))).toBe(false);
    expect(
      handle
        .mcpServers()
        .map((st) => [
          st.state,
          st.tools,
          st.error?.startsWith("the server was killed by SIGKILL"),
        ]),
    ).toEqual([["failed", 0, true]]);
    // What the dead server started is stopped with its group.
    await until(() => !isRunning(started.child));
    await handle[Symbol.asyncDispose]();
    expect(handle.mcpServers()[0]?.state).toBe("stopped");
  });
});
