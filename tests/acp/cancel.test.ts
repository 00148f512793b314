/**
 * `session/cancel` where a turn waits on something other than the model's stream: a retry's
 * backoff and a running MCP tool call. Each ends the prompt `cancelled` at once, keeps the
 * log whole, and leaves the session ready for the next prompt.
 */
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import { startAcpFixture } from "../support/acp-fixture.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import { readSessionLog } from "../support/read-session.ts";
import { stdioServer } from "../mcp/rig.ts";

const m = acp.methods.agent.session;

describe("session/cancel", () => {
  test.concurrent("during a retry's backoff answers cancelled at once, with no second try", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    // A minute's pause asked for: only the cancel can answer the prompt sooner.
    f.model.script({ respond: { status: 503, headers: { "retry-after": "60" } } });
    const prompt = f.prompt(sessionId, "busy?");
    await f.h.waitForUpdate(sessionId, (u) => JSON.stringify(u).includes("retrying in 60 s"));
    await f.h.agent.notify(m.cancel, { sessionId });
    expect(await prompt).toEqual({ stopReason: "cancelled" });
    expect(f.model.requests).toHaveLength(1);
    f.model.script(textTurn("back"));
    expect(await f.prompt(sessionId, "now?")).toEqual({ stopReason: "end_turn" });
    expect(f.h.problems).toEqual([]);
  });

  test.concurrent("during an MCP tool call answers cancelled and logs the call's result", async () => {
    await using f = await startAcpFixture({ env: { DSH_PERMISSION: "danger-full-access" } });
    const { sessionId } = await f.h.agent.request(m.new, {
      cwd: f.agent.cwd,
      mcpServers: [stdioServer("t")],
    });
    // The server's `wait` tool answers only when its call is cancelled.
    f.model.script(toolTurn([{ id: "w1", name: "mcp__t__wait", args: {} }]));
    const prompt = f.prompt(sessionId, "wait");
    await f.h.waitForUpdate(
      sessionId,
      (u) =>
        u.sessionUpdate === "tool_call_update" &&
        u.toolCallId === "w1" &&
        u.status === "in_progress",
    );
    await f.h.agent.notify(m.cancel, { sessionId });
    expect(await prompt).toEqual({ stopReason: "cancelled" });
    const { events } = await readSessionLog(f.agent.home, sessionId);
    expect(events.filter((e) => e.type === "tool_result").map((e) => e.callId)).toEqual(["w1"]);
    expect(events.at(-1)).toMatchObject({ type: "turn_end", reason: "cancelled" });
    // The next request pairs the call with its result; the model server refuses it otherwise.
    f.model.script(textTurn("after"));
    expect(await f.prompt(sessionId, "and now?")).toEqual({ stopReason: "end_turn" });
    expect(f.h.problems).toEqual([]);
  });
});
