/**
 * The one way to cancel a prompt is the signal it was given: a signal aborted already, an
 * abort during a retry's backoff or while an MCP server still starts, and disposal of the
 * handle each end the turn `cancelled` at once, with the prompt kept in the log.
 */
import { describe, expect, test } from "bun:test";
import type { AgentHandle } from "../../src/agent/types.ts";
import { createTestAgent } from "../support/agent.ts";
import { nextEvent } from "../support/live-events.ts";
import { startModelServer, textTurn } from "../support/model-server.ts";
import { FIRST_TURN_OPENING } from "../support/session-events.ts";
import { BAD_SERVER } from "../mcp/rig.ts";

/** A model server and an agent on it, both disposed with the rig; no failed expectation. */
async function startRig(configToml?: string) {
  const server = await startModelServer();
  const agent = createTestAgent({
    baseUrl: server.url,
    ...(configToml === undefined ? {} : { configToml }),
  });
  return {
    server,
    agent,
    async [Symbol.asyncDispose]() {
      await agent[Symbol.asyncDispose]();
      expect(server.failures).toEqual([]);
      await server[Symbol.asyncDispose]();
    },
  };
}

const text = (value: string) => [{ type: "text" as const, text: value }];

/** The types of the log's events and the reason its last turn ended with. */
function logged(handle: AgentHandle) {
  const events = handle.history();
  const end = events.findLast((event) => event.type === "turn_end");
  return {
    types: events.map((event) => event.type),
    reason: end?.type === "turn_end" ? end.reason : undefined,
  };
}

describe("a prompt's signal", () => {
  test.concurrent("aborted already: the turn ends cancelled without a model request, the prompt logged", async () => {
    await using rig = await startRig();
    const { server, agent } = rig;
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const outcome = await handle.prompt(text("never asked"), AbortSignal.abort());
    expect(outcome.reason).toBe("cancelled");
    expect(server.requests).toHaveLength(0);
    expect(logged(handle)).toEqual({
      types: [...FIRST_TURN_OPENING, "turn_end"],
      reason: "cancelled",
    });
    server.script(textTurn("here"));
    expect((await handle.prompt(text("now"), new AbortController().signal)).reason).toBe(
      "end_turn",
    );
  });

  test.concurrent("aborted during a retry's backoff ends the wait at once: no second try", async () => {
    await using rig = await startRig();
    const { server, agent } = rig;
    // The server asks for a minute's pause; only the abort can end the turn sooner.
    server.script({ respond: { status: 503, headers: { "retry-after": "60" } } });
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const stop = new AbortController();
    const retrying = nextEvent(handle, (event) => event.type === "notice");
    const turn = handle.prompt(text("busy?"), stop.signal);
    await retrying;
    stop.abort();
    expect((await turn).reason).toBe("cancelled");
    expect(server.requests).toHaveLength(1);
    expect(logged(handle)).toEqual({
      types: [...FIRST_TURN_OPENING, "turn_end"],
      reason: "cancelled",
    });
  });

  test.concurrent("aborted while an MCP server still starts ends the turn at once", async () => {
    // A server that never answers, and ten minutes to start: only the abort ends the wait.
    await using rig = await startRig(
      [
        "mcp_startup_timeout_ms = 600000",
        "[mcp_servers.mute]",
        `command = ${JSON.stringify(process.execPath)}`,
        `args = ${JSON.stringify([BAD_SERVER, "silent"])}`,
        "",
      ].join("\n"),
    );
    const { server, agent } = rig;
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const stop = new AbortController();
    const started = nextEvent(handle, (event) => event.type === "turn_start");
    const turn = handle.prompt(text("tools?"), stop.signal);
    await started;
    expect(handle.mcpServers().map((s) => s.state)).toEqual(["starting"]);
    stop.abort();
    expect((await turn).reason).toBe("cancelled");
    expect(server.requests).toHaveLength(0);
  });

  test.concurrent("disposing the handle mid-turn ends the turn cancelled, whoever holds the signal", async () => {
    await using rig = await startRig();
    const { server, agent } = rig;
    server.script({ respond: { hang: true } });
    const handle = await agent.composition.service.create({ cwd: agent.cwd });
    const turn = handle.prompt(text("long"), new AbortController().signal);
    await server.received(0);
    await handle[Symbol.asyncDispose]();
    expect((await turn).reason).toBe("cancelled");
    await server.aborted(0);
    expect(logged(handle).reason).toBe("cancelled");
  });
});
