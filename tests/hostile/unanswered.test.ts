/**
 * A prompt that got no answer (cancelled before the first token, or failed) stays its own turn
 * in what the model reads next, marked unanswered, instead of being merged into the next user
 * message; the request still alternates user and assistant.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { textTurn } from "../support/model-server.ts";
import { responseTo } from "./raw-acp.ts";
import { startSession } from "./session-rig.ts";

const Messages = v.array(v.looseObject({ role: v.string(), content: v.optional(v.unknown()) }));

/** The request's messages after the system prompt, as role and text. */
const conversation = (body: Record<string, unknown>) =>
  v
    .parse(Messages, body.messages)
    .flatMap((m) => (m.role === "system" ? [] : [[m.role, m.content]]));

describe.concurrent("unanswered prompts in the model's history", () => {
  test("a prompt cancelled before the first token is its own turn, marked cancelled", async () => {
    await using rig = await startSession();
    const { model, dsh, sessionId } = rig;
    model.script({ respond: { hang: true } }, textTurn("the answer"));
    const first = await dsh.prompt(sessionId, "first question");
    await model.received(0);
    await dsh.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } });
    expect((await dsh.waitFor(responseTo(first))).result).toEqual({ stopReason: "cancelled" });
    await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "second question")));
    expect(conversation(model.requests[1]?.body ?? {})).toEqual([
      ["user", "first question"],
      ["assistant", "(No answer: the user cancelled this turn before any reply.)"],
      ["user", "second question"],
    ]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("a prompt that failed before any output is its own turn, marked failed with the reason", async () => {
    await using rig = await startSession();
    const { model, dsh, sessionId } = rig;
    model.script(
      { respond: { status: 400, json: { error: { message: "bad field" } } } },
      textTurn("the answer"),
    );
    const first = await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "first question")));
    expect(first.error).toBeDefined();
    await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "second question")));
    const [, note] = conversation(model.requests[1]?.body ?? {});
    expect(note).toEqual([
      "assistant",
      expect.stringMatching(/^\(No answer: this turn failed before any reply: .*bad field.*\.\)$/),
    ]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });
});
