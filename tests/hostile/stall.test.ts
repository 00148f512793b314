/**
 * A model endpoint that goes quiet behind the compiled `dsh acp`: no response headers at all,
 * or headers and a first chunk with nothing to show, then silence. One limit
 * (`DSH_STREAM_TIMEOUT`) bounds the whole wait: a stall is never retried, it reports itself
 * while it waits (a `notice`, or a message line for a client without notices), and cancel
 * works throughout.
 */
import { describe, expect, test } from "bun:test";
import { textTurn } from "../support/model-server.ts";
import { endReasons, readStrictLog } from "./checks.ts";
import { type RawAcp, type Wire, responseTo } from "./raw-acp.ts";
import { startSession } from "./session-rig.ts";

/** `initialize` from a client that takes `notice` updates. */
async function initializeWithNotices(dsh: RawAcp): Promise<void> {
  const reply = await dsh.call("initialize", {
    protocolVersion: 1,
    clientCapabilities: { session: { notices: {} } },
    clientInfo: { name: "hostile", version: "0.0.0" },
  });
  if (reply.error !== undefined) throw new Error(`initialize failed: ${reply.error.message}`);
}

const updateOf = (m: Wire) =>
  m.method === "session/update" ? (m.params as { update: Record<string, unknown> }).update : {};
const isNotice = (m: Wire) => updateOf(m).sessionUpdate === "notice";
const host = (text: unknown) => String(text).replace(/127\.0\.0\.1:\d+/g, "HOST");

const silences = {
  "no response headers": { respond: { hang: true } },
  "headers and an empty first chunk, then silence": {
    respond: {
      stream: [
        { raw: 'data: {"choices":[{"index":0,"delta":{"role":"assistant"}}]}\n\n' },
        { until: new Promise<void>(() => undefined) },
      ],
    },
  },
} as const;

describe.concurrent("dsh acp against a silent model endpoint", () => {
  for (const [name, silence] of Object.entries(silences)) {
    test(`${name}: one try, a stall notice while waiting, then an error naming the limit; the next prompt works`, async () => {
      await using rig = await startSession({
        env: { DSH_STREAM_TIMEOUT: "0.5" },
        initialize: initializeWithNotices,
      });
      const { project, model, dsh, sessionId } = rig;
      model.script(silence, textTurn("recovered"));
      const prompt = await dsh.prompt(sessionId, "hi");
      const notice = updateOf(await dsh.waitFor(isNotice));
      const reply = await dsh.waitFor(responseTo(prompt));
      const seen: Record<string, unknown> = {
        notice: { ...notice, title: host(notice.title).replace(/\d+ ms/, "N ms") },
        error: host(reply.error?.message),
        requests: model.requests.length,
      };
      expect(seen).toEqual({
        notice: {
          sessionUpdate: "notice",
          severity: "warning",
          title: "Waiting for HOST: nothing received for N ms",
          description: "dsh gives up after 500 ms of silence (DSH_STREAM_TIMEOUT).",
        },
        error: expect.stringContaining(
          "no data from HOST for 500 ms; gave up (DSH_STREAM_TIMEOUT)",
        ),
        requests: 1,
      });
      const next = await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "again")));
      expect(next.result).toEqual({ stopReason: "end_turn" });
      expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
      expect(endReasons(await readStrictLog(project.logPath(sessionId)))).toEqual([
        "error",
        "end_turn",
      ]);
    });
  }

  test("cancel during a stall settles the prompt cancelled at once", async () => {
    await using rig = await startSession({
      env: { DSH_STREAM_TIMEOUT: "3600" },
      initialize: initializeWithNotices,
    });
    const { model, dsh, sessionId } = rig;
    model.script(silences["no response headers"]);
    const prompt = await dsh.prompt(sessionId, "hi");
    await model.received(0);
    await dsh.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } });
    expect((await dsh.waitFor(responseTo(prompt))).result).toEqual({ stopReason: "cancelled" });
    await model.aborted(0);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("a client without notices sees the stall as a line of the agent's message", async () => {
    await using rig = await startSession({ env: { DSH_STREAM_TIMEOUT: "0.5" } });
    const { model, dsh, sessionId } = rig;
    model.script(silences["no response headers"]);
    const prompt = await dsh.prompt(sessionId, "hi");
    const line = await dsh.waitFor((m) => updateOf(m).sessionUpdate === "agent_message_chunk");
    await dsh.waitFor(responseTo(prompt));
    expect(host(JSON.stringify(updateOf(line).content))).toContain(
      "Waiting for HOST: nothing received for",
    );
    expect(dsh.messages.filter(isNotice)).toEqual([]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("a rate-limited try says so and when it retries", async () => {
    await using rig = await startSession({ initialize: initializeWithNotices });
    const { model, dsh, sessionId } = rig;
    model.script(
      {
        respond: {
          status: 429,
          headers: { "retry-after": "1" },
          json: { error: { message: "slow down" } },
        },
      },
      textTurn("done"),
    );
    const prompt = await dsh.prompt(sessionId, "hi");
    expect((await dsh.waitFor(responseTo(prompt))).result).toEqual({ stopReason: "end_turn" });
    const notices = dsh.messages.filter(isNotice).map(updateOf);
    expect(notices.map((n) => host(n.title))).toEqual([
      "Rate limited by HOST, retrying in 1 s (try 2 of 4)",
    ]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });
});
