/**
 * The older SSE transport through the compiled `dsh acp`: named `sse` by the editor, and
 * reached by falling back from streamable HTTP when a config file's `url` leads to an
 * SSE-only server.
 */
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import { zedInitialize } from "../support/acp-harness.ts";
import { spawnAcp } from "../support/acp-process.ts";
import { startMcpSseServer } from "../support/mcp-sse-server.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { toolMessages } from "./rig.ts";

const m = acp.methods.agent.session;

describe("MCP over SSE", () => {
  test("an editor's sse server and a config url that only speaks SSE both work", async () => {
    await using model = await startModelServer();
    await using editorSse = await startMcpSseServer("old");
    await using fileSse = await startMcpSseServer("legacy");
    await using dsh = await spawnAcp({
      baseUrl: model.url,
      env: { DSH_PERMISSION: "danger-full-access" },
      configToml: `[mcp_servers.legacy]\nurl = "${fileSse.url}"\n`,
    });
    await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(false));
    const { sessionId } = await dsh.agent.request(m.new, {
      cwd: dsh.cwd,
      mcpServers: [{ type: "sse", name: "old", url: editorSse.url, headers: [] }],
    });
    model.script(
      toolTurn([
        { id: "a", name: "mcp__legacy__echo", args: { text: "one" } },
        { id: "b", name: "mcp__old__echo", args: { text: "two" } },
      ]),
      textTurn("ok"),
    );
    await dsh.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text: "go" }] });
    expect(toolMessages(model.requests[1])).toEqual({
      a: "echo from legacy: one",
      b: "echo from old: two",
    });
    expect([fileSse.calls.length, editorSse.calls.length]).toEqual([1, 1]);
    expect(dsh.problems).toEqual([]);
  });
});
