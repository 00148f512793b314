/**
 * Two servers whose tools flatten to the same `mcp__<server>__<tool>` (server `a`'s `b__echo`
 * and server `a__b`'s `echo`): each gets a name of its own, the same in every request, each
 * name reaches its own tool, and an "always allow" for one never covers the other.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ApprovalAnswerer, AskedRequest } from "../../src/approval/types.ts";
import { createTestAgent } from "../support/agent.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { offeredTools, serverLog, stdioTable, toolMessages } from "./rig.ts";

/** Server `a`'s tool `b__echo` keeps the plain name; server `a__b`'s `echo` gets a digest. */
const OF_A = "mcp__a__b__echo";
const OF_A_B = "mcp__a__b__echo_e944a9bc";

const text = (value: string) => [{ type: "text" as const, text: value }];

function tempDir() {
  const path = mkdtempSync(join(tmpdir(), "dsh-mcp-names-"));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

function servers(logs: string): string {
  return [
    stdioTable("a", { MCP_TEST_LOG: join(logs, "a.log"), MCP_TEST_EXTRA_TOOL: "b__echo" }),
    stdioTable("a__b", { MCP_TEST_LOG: join(logs, "a__b.log") }),
  ].join("\n");
}

describe("MCP tool names that meet", () => {
  test("two servers' tools get distinct names, stable across requests, each reaching its own tool", async () => {
    using logs = tempDir();
    await using model = await startModelServer();
    await using agent = createTestAgent({
      baseUrl: model.url,
      env: { DSH_PERMISSION: "danger-full-access" },
      configToml: servers(logs.path),
    });
    await using session = await agent.composition.service.create({ cwd: agent.cwd });
    model.script(
      toolTurn([
        { id: "x", name: OF_A, args: { text: "one" } },
        { id: "y", name: OF_A_B, args: { text: "two" } },
      ]),
      textTurn("done"),
    );
    const done = await session.prompt(text("go"), new AbortController().signal);
    const [first, second] = [offeredTools(model.requests[0]), offeredTools(model.requests[1])];
    expect({
      reason: done.reason,
      meeting: first.filter((name) => name.startsWith(OF_A)).sort(),
      distinct: new Set(first).size === first.length,
      stable: second,
    }).toEqual({ reason: "end_turn", meeting: [OF_A, OF_A_B], distinct: true, stable: first });
    expect(toolMessages(model.requests[1])).toEqual({
      x: "b__echo from a: one",
      y: "echo from a__b: two",
    });
    expect([
      serverLog(join(logs.path, "a.log")).calls,
      serverLog(join(logs.path, "a__b.log")).calls,
    ]).toEqual([
      [{ tool: "b__echo", args: { text: "one" } }],
      [{ tool: "echo", args: { text: "two" } }],
    ]);
  });

  test("always allowing server a's tool leaves server a__b's tool of the same flat name asked", async () => {
    using logs = tempDir();
    const asked: AskedRequest[] = [];
    // Always allows the first request, rejects every later one.
    const answerer: ApprovalAnswerer = {
      answer: async (request) => {
        asked.push(request);
        return asked.length === 1 ? "allow_always" : "deny";
      },
    };
    await using model = await startModelServer();
    await using agent = createTestAgent({
      baseUrl: model.url,
      answerers: [answerer],
      configToml: servers(logs.path),
    });
    await using session = await agent.composition.service.create({ cwd: agent.cwd });
    model.script(
      toolTurn([{ id: "x1", name: OF_A, args: { text: "one" } }]),
      toolTurn([{ id: "y", name: OF_A_B, args: { text: "two" } }]),
      toolTurn([{ id: "x2", name: OF_A, args: { text: "three" } }]),
      textTurn("done"),
    );
    await session.prompt(text("go"), new AbortController().signal);
    expect(asked.map((request) => [request.title, request.offer?.label])).toEqual([
      [
        "Call b__echo on the MCP server a",
        `Always allow \`b__echo\` of the MCP server \`a\` in ${agent.cwd}`,
      ],
      [
        "Call echo on the MCP server a__b",
        `Always allow \`echo\` of the MCP server \`a__b\` in ${agent.cwd}`,
      ],
    ]);
    const saved = JSON.parse(readFileSync(join(agent.home, "rules.json"), "utf8"));
    expect(saved.projects).toEqual({
      [agent.cwd]: [{ type: "mcp_tool", server: "a", tool: "b__echo" }],
    });
    expect([
      serverLog(join(logs.path, "a.log")).calls.map((call) => call.args),
      serverLog(join(logs.path, "a__b.log")).calls,
    ]).toEqual([[{ text: "one" }, { text: "three" }], []]);
  });
});
