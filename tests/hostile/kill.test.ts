/**
 * `dsh acp` killed with SIGKILL mid-turn (no handler runs, nothing is flushed on the way out),
 * then a new `dsh acp` on the same state dir: the log is whole, the session loads, the
 * interrupted turn replays with its open call failed, and the next prompt's request history
 * is valid (every assistant tool call answered).
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { CANCELLED_TOOL_OUTPUT } from "../../src/session/history.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { endReasons, historyProblems, openTurns, readStrictLog } from "./checks.ts";
import { createProject } from "./project.ts";
import { type RawAcp, type Wire, responseTo, spawnRawAcp } from "./raw-acp.ts";

const updateIncludes = (text: string) => (m: Wire) =>
  m.method === "session/update" && JSON.stringify(m.params).includes(text);

const MessageChunk = v.object({
  sessionUpdate: v.picklist(["user_message_chunk", "agent_message_chunk"]),
  content: v.object({ text: v.string() }),
});

async function kill(dsh: RawAcp): Promise<void> {
  dsh.proc.kill("SIGKILL");
  await dsh.proc.exited;
  expect([dsh.proc.signalCode, dsh.problems]).toEqual(["SIGKILL", []]);
}

describe.concurrent("dsh acp killed mid-turn", () => {
  test("killed while a command runs: the session loads with the call failed, and goes on", async () => {
    using project = createProject();
    await using model = await startModelServer();
    let sessionId: string;
    {
      await using dsh = await spawnRawAcp(project, { baseUrl: model.url });
      await dsh.initialize();
      sessionId = await dsh.newSession();
      model.script(toolTurn([{ id: "b1", name: "bash", args: { command: "tail -f /dev/null" } }]));
      await dsh.prompt(sessionId, "run the endless command");
      await dsh.waitFor((m) => updateIncludes('"b1"')(m) && updateIncludes('"in_progress"')(m));
      await kill(dsh);
    }
    const before = await readStrictLog(project.logPath(sessionId));
    expect(
      before.filter((e) => e.type === "tool_call" || e.type === "tool_result").map((e) => e.type),
    ).toEqual(["tool_call"]);
    expect(openTurns(before)).toHaveLength(1);

    await using again = await spawnRawAcp(project, { baseUrl: model.url });
    await again.initialize();
    const load = await again.call("session/load", { sessionId, cwd: project.cwd, mcpServers: [] });
    expect(load.error).toBeUndefined();
    const replayed = again.updates(sessionId);
    expect(replayed[0]).toEqual({
      sessionUpdate: "user_message_chunk",
      content: { type: "text", text: "run the endless command" },
    });
    expect(replayed).toContainEqual(
      expect.objectContaining({ sessionUpdate: "tool_call", toolCallId: "b1" }),
    );
    // The transcript ends with the call failed; only the context meter follows it.
    const transcript = replayed.filter(
      (u) =>
        !(
          typeof u === "object" &&
          u !== null &&
          "sessionUpdate" in u &&
          u.sessionUpdate === "usage_update"
        ),
    );
    expect(transcript.at(-1)).toMatchObject({
      sessionUpdate: "tool_call_update",
      toolCallId: "b1",
      status: "failed",
    });

    model.script(textTurn("starting over"));
    const reply = await again.waitFor(responseTo(await again.prompt(sessionId, "what happened?")));
    expect(reply.result).toEqual({ stopReason: "end_turn" });
    const body = model.requests[1]?.body ?? {};
    expect(historyProblems(body)).toEqual([]);
    expect(JSON.stringify(body.messages)).toContain(
      JSON.stringify({ role: "tool", tool_call_id: "b1", content: CANCELLED_TOOL_OUTPUT }).slice(
        1,
        -1,
      ),
    );
    expect(await again.finish()).toEqual({ code: 0, problems: [] });
    const after = await readStrictLog(project.logPath(sessionId));
    expect({ ended: endReasons(after), open: openTurns(after) }).toEqual({
      ended: ["end_turn"],
      open: openTurns(before),
    });
  });

  test("killed mid-stream: the interrupted turn shows its prompt, and the next prompt works", async () => {
    using project = createProject();
    await using model = await startModelServer();
    let sessionId: string;
    {
      await using dsh = await spawnRawAcp(project, { baseUrl: model.url });
      await dsh.initialize();
      sessionId = await dsh.newSession();
      model.script(textTurn("a first answer"));
      await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "first")));
      const never = Promise.withResolvers<void>();
      model.script({
        respond: { stream: [{ text: "half of a second" }, { until: never.promise }] },
      });
      await dsh.prompt(sessionId, "second");
      await dsh.waitFor(updateIncludes("half of a second"));
      await kill(dsh);
    }
    await using again = await spawnRawAcp(project, { baseUrl: model.url });
    await again.initialize();
    await again.call("session/load", { sessionId, cwd: project.cwd, mcpServers: [] });
    const texts = again.updates(sessionId).flatMap((u) => {
      const chunk = v.safeParse(MessageChunk, u);
      return chunk.success ? [chunk.output.content.text] : [];
    });
    expect(texts).toEqual(["first", "a first answer", "second"]);
    model.script(textTurn("third answer"));
    const reply = await again.waitFor(responseTo(await again.prompt(sessionId, "third")));
    expect(reply.result).toEqual({ stopReason: "end_turn" });
    expect(historyProblems(model.requests[2]?.body ?? {})).toEqual([]);
    expect(await again.finish()).toEqual({ code: 0, problems: [] });
    const events = await readStrictLog(project.logPath(sessionId));
    expect({ ended: endReasons(events), open: openTurns(events).length }).toEqual({
      ended: ["end_turn", "end_turn"],
      open: 1,
    });
  });
});
