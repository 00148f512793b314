/**
 * A dead, slow or confused client on the other end of `dsh acp`'s pipes: stdin closed mid-turn,
 * stdout closed mid-turn, a permission request never answered, answered late or answered with
 * garbage. dsh never crashes, never hangs, never runs what was not allowed, and the session log
 * stays whole and loadable.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { chunks, textTurn, toolTurn } from "../support/model-server.ts";
import { endReasons, openTurns, readStrictLog } from "./checks.ts";
import type { HostileProject } from "./project.ts";
import { type SessionRig, startSession } from "./session-rig.ts";
import { type AgentRequest, type RawAcp, responseTo, spawnRawAcp } from "./raw-acp.ts";

/** A model step asking to run `touch marker` outside the sandbox (which asks the user first). */
const escalatedTouch = (id: string, marker: string) =>
  toolTurn([
    {
      id,
      name: "bash",
      args: { command: `touch ${marker}`, escalate: true, justification: "test" },
    },
  ]);

const isPermissionRequest = (m: { method?: string; id?: unknown }) =>
  m.method === "session/request_permission" && m.id !== undefined;

/** A fresh `dsh acp` in `project` replays the session without problems; resolves with its updates. */
async function reload(
  project: HostileProject,
  sessionId: string,
  baseUrl: string,
): Promise<unknown[]> {
  await using again = await spawnRawAcp(project, { baseUrl });
  await again.initialize();
  const reply = await again.call("session/load", { sessionId, cwd: project.cwd, mcpServers: [] });
  expect(reply.error).toBeUndefined();
  expect(await again.finish()).toEqual({ code: 0, problems: [] });
  return again.updates(sessionId);
}

/** CPU time a process used, in milliseconds (after it exited). */
function cpuMs(dsh: RawAcp): number {
  return Number(dsh.proc.resourceUsage()?.cpuTime.total ?? 0n) / 1000;
}

/**
 * Whether `m` is a chunk of the answer holding `text`: not any update that mentions it (a
 * command list's descriptions may say "before" too).
 */
function isAnswerChunk(m: { method?: string; params?: unknown }, text: string): boolean {
  if (m.method !== "session/update") return false;
  const update = (m.params as { update?: { sessionUpdate?: string; content?: { text?: unknown } } })
    .update;
  const chunk = update?.content?.text;
  return (
    update?.sessionUpdate === "agent_message_chunk" &&
    typeof chunk === "string" &&
    chunk.includes(text)
  );
}

/** Starts a turn whose model streams "half an answer", then nothing; resolves once dsh sent it. */
async function promptHalfAnswered({ model, dsh, sessionId }: SessionRig): Promise<void> {
  const never = Promise.withResolvers<void>();
  model.script({ respond: { stream: [{ text: "half an answer" }, { until: never.promise }] } });
  await dsh.prompt(sessionId, "long job");
  await dsh.waitFor((m) => isAnswerChunk(m, "half an answer"));
}

// The cases run side by side, each starting dsh twice (the session, then its reload): on a
// loaded 2-core machine one takes longer than bun's 5 s default. A dsh that hangs still fails.
setDefaultTimeout(30_000);

describe.concurrent("dsh acp with a dead or slow client", () => {
  test("stdin closed mid-turn: dsh exits 0 and the turn is logged cancelled", async () => {
    await using rig = await startSession();
    const { project, model, dsh, sessionId } = rig;
    await promptHalfAnswered(rig);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
    await model.aborted(0);
    const events = await readStrictLog(project.logPath(sessionId));
    expect({ ended: endReasons(events), open: openTurns(events) }).toEqual({
      ended: ["cancelled"],
      open: [],
    });
    expect(events.find((e) => e.type === "assistant_text")).toMatchObject({
      text: "half an answer",
    });
    const replayed = await reload(project, sessionId, model.url);
    expect(JSON.stringify(replayed)).toContain("half an answer");
  });

  test("stdout closed mid-turn: dsh notices at its next write, cancels the turn and exits 0 on its own", async () => {
    await using rig = await startSession();
    const { project, model, dsh, sessionId } = rig;
    const release = Promise.withResolvers<void>();
    const never = Promise.withResolvers<void>();
    model.script({
      // After the release, more than a pipe buffer of text: whenever the client's end of the
      // pipe actually closes, one of these writes meets it.
      respond: {
        stream: [
          { text: "before" },
          { until: release.promise },
          ...chunks("x".repeat(256 * 1024), 4096).map((text) => ({ text })),
          { until: never.promise },
        ],
      },
    });
    await dsh.prompt(sessionId, "long job");
    await dsh.waitFor((m) => isAnswerChunk(m, "before"));
    await dsh.closeStdout();
    release.resolve();
    // stdin stays open: dsh must leave by itself, and without burning CPU on the broken pipe.
    expect(await dsh.proc.exited).toBe(0);
    await model.aborted(0);
    expect(cpuMs(dsh)).toBeLessThan(3_000);
    const events = await readStrictLog(project.logPath(sessionId));
    expect({ ended: endReasons(events), open: openTurns(events) }).toEqual({
      ended: ["cancelled"],
      open: [],
    });
    // What was streamed until dsh noticed is logged: "before", and the x's it had by then. On
    // a loaded machine its periodic check of the pipe can come before the first x.
    const partial = events.find((e) => e.type === "assistant_text");
    expect(partial?.type === "assistant_text" && /^beforex*$/.test(partial.text)).toBe(true);
    expect(dsh.problems).toEqual([]);
    await reload(project, sessionId, model.url);
  });

  test("stdout closed while dsh has nothing to write: it notices anyway, cancels the turn and exits 0", async () => {
    await using rig = await startSession({ env: { DSH_LOG_LEVEL: "info" } });
    const { project, model, dsh, sessionId } = rig;
    await promptHalfAnswered(rig);
    // stdin stays open and the model stays silent: no write of dsh's can fail.
    await dsh.closeStdout();
    expect(await dsh.proc.exited).toBe(0);
    expect(await dsh.stderr()).toContain('"noticed":"while idle"');
    await model.aborted(0);
    const events = await readStrictLog(project.logPath(sessionId));
    expect({ ended: endReasons(events), open: openTurns(events) }).toEqual({
      ended: ["cancelled"],
      open: [],
    });
    expect(dsh.problems).toEqual([]);
    expect(JSON.stringify(await reload(project, sessionId, model.url))).toContain("half an answer");
  });

  test("stdout closed between turns: dsh exits 0 and the finished turn reloads", async () => {
    await using rig = await startSession();
    const { project, model, dsh, sessionId } = rig;
    model.script(textTurn("all done"));
    const reply = await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "short job")));
    expect(reply.result).toEqual({ stopReason: "end_turn" });
    await dsh.closeStdout();
    expect(await dsh.proc.exited).toBe(0);
    const events = await readStrictLog(project.logPath(sessionId));
    expect({ ended: endReasons(events), open: openTurns(events) }).toEqual({
      ended: ["end_turn"],
      open: [],
    });
    expect(JSON.stringify(await reload(project, sessionId, model.url))).toContain("all done");
  });

  test("a permission request never answered, then session/cancel: the prompt ends cancelled and the command never ran", async () => {
    await using rig = await startSession();
    const { project, model, dsh, sessionId } = rig;
    const marker = join(project.root, "ran");
    model.script(escalatedTouch("t1", marker), textTurn("after the cancel"));
    const prompt = await dsh.prompt(sessionId, "touch it");
    const asked = await dsh.waitFor(isPermissionRequest);
    await dsh.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } });
    const reply = await dsh.waitFor(responseTo(prompt));
    expect(reply.result).toEqual({ stopReason: "cancelled" });
    // dsh withdrew its question, so a client can close the dialog.
    expect(dsh.messages).toContainEqual({
      jsonrpc: "2.0",
      method: "$/cancel_request",
      params: { requestId: asked.id },
    });
    // An answer that arrives after all that is ignored: it runs nothing.
    await dsh.send({
      jsonrpc: "2.0",
      id: asked.id ?? null,
      result: { outcome: { outcome: "selected", optionId: "allow" } },
    });
    const next = await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "and now?")));
    expect(next.result).toEqual({ stopReason: "end_turn" });
    expect(existsSync(marker)).toBe(false);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
    const events = await readStrictLog(project.logPath(sessionId));
    expect(endReasons(events)).toEqual(["cancelled", "end_turn"]);
    // The cancelled call is answered in the history the model sees next.
    const history = JSON.stringify(model.requests[1]?.body.messages);
    expect(history).toContain('"tool_call_id":"t1"');
  });

  const answers: [string, (request: AgentRequest) => unknown, boolean][] = [
    ["an empty result", () => ({}), false],
    ["a string", () => "allow", false],
    [
      "an unknown option id",
      () => ({ outcome: { outcome: "selected", optionId: "allow_always_and_forever" } }),
      false,
    ],
    ["a selection without an option id", () => ({ outcome: { outcome: "selected" } }), false],
    ["an unknown outcome", () => ({ outcome: { outcome: "approved", optionId: "allow" } }), false],
    [
      "the option's name instead of its id",
      () => ({ outcome: { outcome: "selected", optionId: "Allow" } }),
      false,
    ],
    // The control: the same request, answered properly, does run the command.
    ["allow", () => ({ outcome: { outcome: "selected", optionId: "allow" } }), true],
  ];
  for (const [what, answer, runs] of answers) {
    test(`a permission answer that is ${what} ${runs ? "runs" : "denies"} the command`, async () => {
      await using rig = await startSession({ answer });
      const { project, model, dsh, sessionId } = rig;
      const marker = join(project.root, "ran");
      model.script(escalatedTouch("t1", marker), textTurn("over"));
      const reply = await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "touch it")));
      expect(reply.result).toEqual({ stopReason: "end_turn" });
      expect(dsh.messages.filter(isPermissionRequest)).toHaveLength(1);
      expect(existsSync(marker)).toBe(runs);
      const events = await readStrictLog(project.logPath(sessionId));
      expect(events.find((e) => e.type === "tool_result")).toMatchObject({
        callId: "t1",
        isError: !runs,
      });
      expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
    });
  }

  test("a permission request answered with a JSON-RPC error denies the command", async () => {
    await using rig = await startSession();
    const { project, model, dsh, sessionId } = rig;
    const marker = join(project.root, "ran");
    model.script(escalatedTouch("t1", marker), textTurn("denied, fine"));
    const prompt = await dsh.prompt(sessionId, "touch it");
    const asked = await dsh.waitFor(isPermissionRequest);
    await dsh.send({
      jsonrpc: "2.0",
      id: asked.id ?? null,
      error: { code: -32603, message: "editor crashed" },
    });
    expect((await dsh.waitFor(responseTo(prompt))).result).toEqual({ stopReason: "end_turn" });
    expect(existsSync(marker)).toBe(false);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });
});
