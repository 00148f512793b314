import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import { availableCommandsUpdate } from "../../src/acp/commands.ts";
import { type AcpHarness, responseIndex } from "../support/acp-harness.ts";
import { rejection, startAcpFixture } from "../support/acp-fixture.ts";
import { type ScriptedTurn, textTurn } from "../support/model-server.ts";

const m = acp.methods.agent.session;

/** A text turn whose stream waits for `release` after `before` was sent. */
function heldTurn(
  release: Promise<unknown>,
  before: string | undefined,
  after: string,
): ScriptedTurn {
  return {
    respond: {
      stream: [
        ...(before === undefined ? [] : [{ text: before }]),
        { until: release },
        { text: after },
        { finish: "stop" },
        { usage: { prompt: 7, completion: 3 } },
        { done: true },
      ],
    },
  };
}

/** Session updates written for `sessionId` after its last prompt's response. */
function updatesAfterSettlement(h: AcpHarness, sessionId: string): unknown[] {
  const settled = responseIndex(h, m.prompt, sessionId);
  expect(settled).toBeGreaterThan(-1);
  return h.sent
    .slice(settled + 1)
    .filter(
      (msg) => msg.method === "session/update" && JSON.stringify(msg.params).includes(sessionId),
    );
}

function kinds(updates: readonly acp.SessionUpdate[]): string[] {
  return updates.map((u) => u.sessionUpdate);
}

describe("session/prompt", () => {
  test("a turn streams thought, text and usage, and settles once, after its last update", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    f.model.script(textTurn("Hello there", { reasoning: "thinking" }));
    const response = await f.prompt(sessionId, "say hi\nplease");
    const seenAtSettlement = f.h.updates(sessionId);
    expect(response).toEqual({ stopReason: "end_turn" });
    expect(seenAtSettlement).toEqual([
      // A new session's command list goes out before anything else it sends.
      availableCommandsUpdate(),
      { sessionUpdate: "session_info_update", title: "say hi" },
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "thinking" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello there" } },
      {
        sessionUpdate: "usage_update",
        used: 15,
        size: expect.any(Number),
        // Flash's price depends on the hour (peak or off-peak); tests/acp/cost.test.ts pins it.
        cost: { amount: expect.any(Number), currency: "USD" },
      },
    ]);
    await f.h.disconnect();
    expect(updatesAfterSettlement(f.h, sessionId)).toEqual([]);
    expect(f.h.updates(sessionId)).toEqual(seenAtSettlement);
    expect(
      f.h.sent.filter(
        (msg) =>
          msg.method === undefined &&
          msg.result !== undefined &&
          JSON.stringify(msg.result).includes("stopReason"),
      ),
    ).toHaveLength(1);
    expect(f.h.problems).toEqual([]);
  });

  test("audio, a broken image and empty prompts are invalid params, before any model request", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    const prompts: acp.ContentBlock[][] = [
      [],
      [{ type: "text", text: "   " }],
      [{ type: "image", data: "R0lGODlh", mimeType: "image/png" }],
      [{ type: "audio", data: "UklGRg==", mimeType: "audio/wav" }],
    ];
    const codes = [];
    for (const prompt of prompts)
      codes.push((await rejection(f.h.agent.request(m.prompt, { sessionId, prompt }))).code);
    expect(codes).toEqual([-32602, -32602, -32602, -32602]);
    expect(f.model.requests).toHaveLength(0);
    f.model.script(textTurn("ok"));
    const linked = await f.h.agent.request(m.prompt, {
      sessionId,
      prompt: [
        { type: "text", text: "read" },
        { type: "resource_link", uri: `file://${f.agent.cwd}/a.txt`, name: "a.txt" },
      ],
    });
    expect(linked).toEqual({ stopReason: "end_turn" });
    expect(f.h.problems).toEqual([]);
  });

  test("a second prompt while one runs is refused and the first finishes untouched", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    const release = Promise.withResolvers<void>();
    f.model.script(heldTurn(release.promise, "first ", "answer"));
    const first = f.prompt(sessionId, "one");
    await f.model.received(0);
    const second = await rejection(f.prompt(sessionId, "two"));
    release.resolve();
    expect(await first).toEqual({ stopReason: "end_turn" });
    expect(second.code).toBe(-32600);
    const text = f.h
      .updates(sessionId)
      .flatMap((u) =>
        u.sessionUpdate === "agent_message_chunk" && u.content.type === "text"
          ? [u.content.text]
          : [],
      );
    expect(text.join("")).toBe("first answer");
    expect(f.model.requests).toHaveLength(1);
    expect(f.h.problems).toEqual([]);
  });

  test("an error turn rejects the prompt with the typed error's message; an auth failure says so", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    f.model.script({
      respond: {
        status: 401,
        json: { error: { message: "Authentication Fails, Your api key is invalid" } },
      },
    });
    const error = await rejection(f.prompt(sessionId, "hi"));
    expect(error.code).toBe(-32603);
    expect(error.data).toMatchObject({ code: "auth" });
    expect(error.message.toLowerCase()).toContain("auth");
    // The session stays usable.
    f.model.script(textTurn("fine"));
    expect(await f.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" });
    expect(f.h.problems).toEqual([]);
  });

  test("a prompt for an unknown session is not found", async () => {
    await using f = await startAcpFixture();
    const error = await rejection(f.prompt("0190f5a2-0000-7000-8000-000000000000", "hi"));
    expect(error.code).toBe(-32002);
  });

  test("ten sessions prompted at once each get their own answer, with no cross-talk", async () => {
    await using f = await startAcpFixture();
    const sessions = await Promise.all(Array.from({ length: 10 }, () => f.newSession()));
    for (let n = 0; n < 10; n++)
      f.model.script(textTurn(`answer ${n}`, { reasoning: `thought ${n}` }));
    const results = await Promise.all(
      sessions.map((s, k) => f.prompt(s.sessionId, `question ${k}`)),
    );
    expect(results.every((r) => r.stopReason === "end_turn")).toBe(true);
    // The server answers requests in arrival order: request n got "answer n".
    const answerOf = new Map<string, string>();
    f.model.requests.forEach((request, n) => {
      const question = JSON.stringify(request.body.messages).match(/question (\d)/)?.[1];
      if (question !== undefined) answerOf.set(question, String(n));
    });
    sessions.forEach((s, k) => {
      const n = answerOf.get(String(k));
      expect(kinds(f.h.updates(s.sessionId))).toEqual([
        "available_commands_update",
        "session_info_update",
        "agent_thought_chunk",
        "agent_message_chunk",
        "usage_update",
      ]);
      expect(f.h.updates(s.sessionId).slice(1, 4)).toEqual([
        { sessionUpdate: "session_info_update", title: `question ${k}` },
        { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: `thought ${n}` } },
        { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `answer ${n}` } },
      ]);
    });
    await f.h.disconnect();
    for (const s of sessions) expect(updatesAfterSettlement(f.h, s.sessionId)).toEqual([]);
    expect(f.h.problems).toEqual([]);
  });
});

describe("session/cancel", () => {
  test("cancel before the first token: the prompt resolves cancelled, no text, the stream is dropped", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    const never = Promise.withResolvers<void>();
    f.model.script(heldTurn(never.promise, undefined, "too late"));
    const prompt = f.prompt(sessionId, "hi");
    await f.model.received(0);
    await f.h.agent.notify(m.cancel, { sessionId });
    expect(await prompt).toEqual({ stopReason: "cancelled" });
    await f.model.aborted(0);
    expect(kinds(f.h.updates(sessionId))).toEqual([
      "available_commands_update",
      "session_info_update",
    ]);
    await f.h.disconnect();
    expect(updatesAfterSettlement(f.h, sessionId)).toEqual([]);
    expect(f.h.problems).toEqual([]);
  });

  test("a cancel sent right behind the prompt still ends it cancelled", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    const never = Promise.withResolvers<void>();
    f.model.script(heldTurn(never.promise, undefined, "x"));
    const prompt = f.prompt(sessionId, "hi");
    void f.h.agent.notify(m.cancel, { sessionId });
    expect(await prompt).toEqual({ stopReason: "cancelled" });
  });

  test("cancel twice in a row cancels once, and the session takes the next prompt", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    const never = Promise.withResolvers<void>();
    f.model.script(heldTurn(never.promise, "partial ", "x"));
    const prompt = f.prompt(sessionId, "hi");
    await f.h.waitForUpdate(sessionId, (u) => u.sessionUpdate === "agent_message_chunk");
    await f.h.agent.notify(m.cancel, { sessionId });
    await f.h.agent.notify(m.cancel, { sessionId });
    expect(await prompt).toEqual({ stopReason: "cancelled" });
    f.model.script(textTurn("next"));
    expect(await f.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" });
    expect(f.h.problems).toEqual([]);
  });

  test("cancel after the end, and for idle or unknown sessions, is ignored", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    const other = await f.newSession();
    f.model.script(textTurn("done"));
    expect(await f.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
    await f.h.agent.notify(m.cancel, { sessionId });
    await f.h.agent.notify(m.cancel, { sessionId: other.sessionId });
    await f.h.agent.notify(m.cancel, { sessionId: "not-a-session" });
    f.model.script(textTurn("still here"));
    expect(await f.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" });
    expect(f.h.sent.filter((msg) => msg.error !== undefined)).toEqual([]);
  });

  test("cancel addresses one session only", async () => {
    await using f = await startAcpFixture();
    const a = await f.newSession();
    const b = await f.newSession();
    const release = Promise.withResolvers<void>();
    const never = Promise.withResolvers<void>();
    f.model.script(
      heldTurn(never.promise, undefined, "a"),
      heldTurn(release.promise, undefined, "b done"),
    );
    const pa = f.prompt(a.sessionId, "a");
    await f.model.received(0);
    const pb = f.prompt(b.sessionId, "b");
    await f.model.received(1);
    await f.h.agent.notify(m.cancel, { sessionId: a.sessionId });
    expect(await pa).toEqual({ stopReason: "cancelled" });
    release.resolve();
    expect(await pb).toEqual({ stopReason: "end_turn" });
  });
});
