/**
 * Hostile requests against a turn in flight on the compiled `dsh acp`: malformed cancels, a
 * second prompt, a JSON-RPC cancel of the prompt request, a close or a load of the busy
 * session. The running turn is touched only by what may stop it, and every request is answered.
 */
import { describe, expect, test } from "bun:test";
import { textTurn } from "../support/model-server.ts";
import { endReasons, openTurns, readStrictLog } from "./checks.ts";
import { responseTo } from "./raw-acp.ts";
import { startSession } from "./session-rig.ts";

/** A session whose first prompt is held by the model until `release`, plus that prompt's id. */
async function busySession() {
  const rig = await startSession();
  const release = Promise.withResolvers<void>();
  rig.model.script({
    respond: {
      stream: [
        { text: "working" },
        { until: release.promise },
        { text: " done" },
        { finish: "stop" },
        { done: true },
      ],
    },
  });
  const prompt = await rig.dsh.prompt(rig.sessionId, "long job");
  await rig.model.received(0);
  return Object.assign(rig, { prompt, release: () => release.resolve() });
}

describe.concurrent("dsh acp with hostile requests during a turn", () => {
  test("malformed session/cancel notifications are ignored and the turn finishes normally", async () => {
    await using rig = await busySession();
    const { project, dsh, sessionId, prompt, release } = rig;
    for (const params of [
      undefined,
      null,
      {},
      { sessionId: 5 },
      { sessionId: [sessionId] },
      "cancel",
      { sessionid: sessionId },
    ]) {
      await dsh.send({
        jsonrpc: "2.0",
        method: "session/cancel",
        ...(params === undefined ? {} : { params }),
      });
    }
    await dsh.send({
      jsonrpc: "2.0",
      method: "session/cancel",
      params: { sessionId: "01a229a8-bcd0-7731-b60f-d02555faee2b" },
    });
    // Answered after every cancel above was handled: they arrived first on the same pipe.
    await dsh.call("session/list", {});
    release();
    expect((await dsh.waitFor(responseTo(prompt))).result).toEqual({ stopReason: "end_turn" });
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
    expect(endReasons(await readStrictLog(project.logPath(sessionId)))).toEqual(["end_turn"]);
  });

  test("a second prompt while one runs is refused with -32600; the first goes on", async () => {
    await using rig = await busySession();
    const { project, model, dsh, sessionId, prompt, release } = rig;
    const second = await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "me too")));
    expect(second.error).toMatchObject({
      code: -32600,
      message: `Invalid request: a prompt is already running in session ${sessionId}`,
    });
    const load = await dsh.call("session/load", { sessionId, cwd: project.cwd, mcpServers: [] });
    expect(load.error).toMatchObject({
      code: -32600,
      message: `Invalid request: session ${sessionId} is running a prompt`,
    });
    release();
    expect((await dsh.waitFor(responseTo(prompt))).result).toEqual({ stopReason: "end_turn" });
    expect(model.requests).toHaveLength(1);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
    const events = await readStrictLog(project.logPath(sessionId));
    expect(events.filter((e) => e.type === "user_message")).toHaveLength(1);
  });

  test("$/cancel_request for the prompt's id ends the turn cancelled, like session/cancel", async () => {
    await using rig = await busySession();
    const { project, model, dsh, sessionId, prompt } = rig;
    await dsh.send({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 987_654 } });
    await dsh.send({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: prompt } });
    expect((await dsh.waitFor(responseTo(prompt))).result).toEqual({ stopReason: "cancelled" });
    await model.aborted(0);
    model.script(textTurn("fine"));
    expect((await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "next")))).result).toEqual({
      stopReason: "end_turn",
    });
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
    expect(endReasons(await readStrictLog(project.logPath(sessionId)))).toEqual([
      "cancelled",
      "end_turn",
    ]);
  });

  test("session/close mid-turn answers the prompt cancelled, then the close; the session loads again", async () => {
    await using rig = await busySession();
    const { project, dsh, sessionId, prompt } = rig;
    const close = await dsh.call("session/close", { sessionId });
    const reply = await dsh.waitFor(responseTo(prompt));
    expect([reply.result, close.result]).toEqual([{ stopReason: "cancelled" }, {}]);
    expect(dsh.messages.indexOf(reply)).toBeLessThan(dsh.messages.indexOf(close));
    const after = await dsh.call("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hello?" }],
    });
    expect(after.error?.code).toBe(-32002);
    const load = await dsh.call("session/load", { sessionId, cwd: project.cwd, mcpServers: [] });
    expect(load.error).toBeUndefined();
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
    const events = await readStrictLog(project.logPath(sessionId));
    expect({ ended: endReasons(events), open: openTurns(events) }).toEqual({
      ended: ["cancelled"],
      open: [],
    });
  });
});
