/**
 * Hostile `mcpServers` entries through the compiled `dsh acp`: each is accepted by
 * `session/new`, fails on its own when started, is reported, and leaves the session working.
 */
import { expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import { zedInitialize } from "../support/acp-harness.ts";
import { spawnAcp } from "../support/acp-process.ts";
import { startModelServer, textTurn } from "../support/model-server.ts";
import { offeredTools } from "./rig.ts";

const m = acp.methods.agent.session;

test("unusable URLs, commands, names and too many servers never fail the session", async () => {
  await using model = await startModelServer();
  await using dsh = await spawnAcp({ baseUrl: model.url });
  await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(false));
  const many = Array.from({ length: 40 }, (_, i) => ({
    name: `n${i}`,
    command: `/nonexistent/${i}`,
    args: [],
    env: [],
  }));
  const mcpServers: acp.McpServer[] = [
    { type: "http", name: "badurl", url: "not a url", headers: [] },
    { type: "sse", name: "nohost", url: "http://127.0.0.1:1/sse", headers: [] },
    {
      type: "http",
      name: "badheader",
      url: "http://127.0.0.1:1/mcp",
      headers: [{ name: "X", value: "a\r\nb" }],
    },
    { name: "empty", command: "", args: [], env: [] },
    { name: "x".repeat(5000), command: "/nonexistent/long", args: [], env: [] },
    { name: "dir", command: "/", args: [], env: [] },
    ...many,
  ];
  const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers });
  model.script(textTurn("fine"));
  expect(
    await dsh.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] }),
  ).toEqual({ stopReason: "end_turn" });
  const answer = dsh.updates
    .flatMap((n) =>
      n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text"
        ? [n.update.content.text]
        : [],
    )
    .join("");
  const notices = answer.split("\n").filter((line) => line.startsWith("> MCP server "));
  expect(notices.length).toBe(46);
  expect(notices.filter((line) => !/ n[0-9]+ /.test(line)).sort()).toEqual([
    "> MCP server badheader did not start: Header 'X' has invalid value; its tools are not available",
    '> MCP server badurl did not start: not a URL: "not a url"; its tools are not available',
    "> MCP server dir did not start: command not executable: /; its tools are not available",
    "> MCP server empty did not start: no command given; its tools are not available",
    expect.stringMatching(
      /^> MCP server nohost did not start: SSE error: .*; its tools are not available$/,
    ),
    `> MCP server ${"x".repeat(63)}… did not start: command not found: /nonexistent/long; its tools are not available`,
  ]);
  expect(notices.filter((line) => line.includes("a session runs at most 32 servers")).length).toBe(
    14,
  );
  expect(answer.endsWith("fine")).toBe(true);
  expect(offeredTools(model.requests[0]).some((name) => name.startsWith("mcp__"))).toBe(false);
  expect(dsh.problems).toEqual([]);
  expect((await dsh.closeStdin()).code).toBe(0);
});
