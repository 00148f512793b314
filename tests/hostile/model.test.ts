/**
 * Trouble at the model endpoint (`DSH_BASE_URL`) behind the compiled `dsh acp`: a server that
 * fails forever, stalls, resets mid-stream or answers with something that is not a chat
 * stream. Every prompt settles with a clear error (or `cancelled` when the user stops it),
 * retries are bounded, the log stays whole, and the session takes the next prompt.
 */
import { describe, expect, test } from "bun:test";
import { type ScriptedTurn, textTurn } from "../support/model-server.ts";
import { endReasons, historyProblems, openTurns, readStrictLog } from "./checks.ts";
import { startSession } from "./session-rig.ts";
import { responseTo } from "./raw-acp.ts";

/** What a failing prompt and the session after it look like. */
async function failingTurn(turns: readonly ScriptedTurn[], seen?: (text: string) => void) {
  await using rig = await startSession();
  const { project, model, dsh, sessionId } = rig;
  model.script(...turns);
  const prompt = await dsh.prompt(sessionId, "hi");
  if (seen !== undefined) {
    const chunk = await dsh.waitFor(
      (m) =>
        m.method === "session/update" && JSON.stringify(m.params).includes("agent_message_chunk"),
    );
    seen(JSON.stringify(chunk.params));
  }
  const reply = await dsh.waitFor(responseTo(prompt));
  const requests = model.requests.length;
  // The session is not stuck: the next prompt is answered.
  model.script(textTurn("recovered"));
  const next = await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "again")));
  const exit = await dsh.finish();
  const events = await readStrictLog(project.logPath(sessionId));
  return {
    error: reply.error,
    requests,
    next: next.result,
    exit,
    ended: endReasons(events),
    open: openTurns(events),
    logged: events.find((e) => e.type === "turn_end"),
    texts: events.flatMap((e) => (e.type === "assistant_text" ? [e.text] : [])),
    history: historyProblems(model.requests.at(-1)?.body ?? {}),
  };
}

/** Three real backoffs take up to 3.5 s; with a session's start, bun's default 5 s is too tight under load. */
const FOUR_REAL_BACKOFFS_MS = 20_000;

const host = (message: string | undefined) => message?.replace(/127\.0\.0\.1:\d+/g, "HOST");

describe.concurrent("dsh acp against a troubled model endpoint", () => {
  test("HTTP 500 forever: four tries, then an error naming the host and status", async () => {
    const fail: ScriptedTurn = {
      respond: {
        status: 500,
        headers: { "retry-after": "0" },
        json: { error: { message: "boom" } },
      },
    };
    const run = await failingTurn([fail, fail, fail, fail]);
    expect({
      ...run,
      error: run.error && { ...run.error, message: host(run.error.message), data: undefined },
    }).toEqual({
      error: { code: -32603, message: "HOST failed (HTTP 500): boom", data: undefined },
      requests: 4,
      next: { stopReason: "end_turn" },
      exit: { code: 0, problems: [] },
      ended: ["error", "end_turn"],
      open: [],
      logged: expect.objectContaining({
        reason: "error",
        error: { code: "server", message: expect.stringContaining("(HTTP 500): boom") },
      }),
      history: [],
      texts: ["recovered"],
    });
  });

  test("a connection reset before any byte is retried and the turn succeeds", async () => {
    await using rig = await startSession();
    const { model, dsh, sessionId } = rig;
    model.script({ respond: { stream: [{ disconnect: true }] } }, textTurn("second try"));
    const reply = await dsh.waitFor(responseTo(await dsh.prompt(sessionId, "hi")));
    expect([reply.result, model.requests.length]).toEqual([{ stopReason: "end_turn" }, 2]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test(
    "a connection reset on every try: the error says what failed, with none of the runtime's advice",
    async () => {
      const reset: ScriptedTurn = { respond: { stream: [{ disconnect: true }] } };
      const run = await failingTurn([reset, reset, reset, reset]);
      expect({ message: host(run.error?.message), requests: run.requests }).toEqual({
        message: "cannot reach HOST: the connection was reset by the server or the network",
        requests: 4,
      });
    },
    FOUR_REAL_BACKOFFS_MS,
  );

  test("a connection reset mid-stream is not retried (the text was shown): an error, the partial text kept", async () => {
    const shown = Promise.withResolvers<void>();
    const run = await failingTurn(
      [
        {
          respond: {
            stream: [{ text: "partial answer" }, { until: shown.promise }, { disconnect: "reset" }],
          },
        },
      ],
      () => shown.resolve(),
    );
    expect({
      code: run.error?.code,
      message: host(run.error?.message),
      requests: run.requests,
    }).toEqual({
      code: -32603,
      message: expect.stringContaining("the connection to HOST broke mid-stream"),
      requests: 1,
    });
    expect({
      next: run.next,
      exit: run.exit,
      ended: run.ended,
      open: run.open,
      history: run.history,
      texts: run.texts,
    }).toEqual({
      texts: ["partial answer", "recovered"],
      next: { stopReason: "end_turn" },
      exit: { code: 0, problems: [] },
      ended: ["error", "end_turn"],
      open: [],
      history: [],
    });
  });

  test("a stream that stalls after some text stops at once on session/cancel", async () => {
    await using rig = await startSession();
    const { project, model, dsh, sessionId } = rig;
    const never = Promise.withResolvers<void>();
    model.script(
      { respond: { stream: [{ text: "thinking" }, { until: never.promise }] } },
      { respond: { hang: true } },
    );
    for (const wait of [
      () =>
        dsh.waitFor(
          (m) => m.method === "session/update" && JSON.stringify(m.params).includes("thinking"),
        ),
      () => model.received(1),
    ]) {
      const prompt = await dsh.prompt(sessionId, "think hard");
      await wait();
      const started = performance.now();
      await dsh.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } });
      const reply = await dsh.waitFor(responseTo(prompt));
      expect([reply.result, performance.now() - started < 2_000]).toEqual([
        { stopReason: "cancelled" },
        true,
      ]);
    }
    await Promise.all([model.aborted(0), model.aborted(1)]);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
    const events = await readStrictLog(project.logPath(sessionId));
    expect(endReasons(events)).toEqual(["cancelled", "cancelled"]);
  });

  test("a 200 that is HTML, not an event stream, is an error saying so", async () => {
    const html: ScriptedTurn = {
      respond: {
        status: 200,
        headers: { "content-type": "text/html" },
        json: "<html>Bad gateway</html>",
      },
    };
    const run = await failingTurn([html]);
    expect([
      run.error?.code,
      host(run.error?.message),
      run.requests,
      run.next,
      run.exit,
      run.ended,
    ]).toEqual([
      -32603,
      "HOST did not answer with an event stream",
      1,
      { stopReason: "end_turn" },
      { code: 0, problems: [] },
      ["error", "end_turn"],
    ]);
  });

  test("garbage data lines in the stream end the turn with an error quoting them", async () => {
    const garbage: ScriptedTurn = {
      respond: {
        stream: [
          { raw: "data: {not json\n\n" },
          { text: "never shown" },
          { finish: "stop" },
          { done: true },
        ],
      },
    };
    const run = await failingTurn([garbage]);
    expect([
      run.error?.code,
      run.error?.message,
      run.requests,
      run.next,
      run.exit,
      run.ended,
    ]).toEqual([
      -32603,
      "the model server sent a chunk that is not JSON: {not json",
      1,
      { stopReason: "end_turn" },
      { code: 0, problems: [] },
      ["error", "end_turn"],
    ]);
  });

  test("an error envelope inside a 200 stream ends the turn with the server's message", async () => {
    const envelope: ScriptedTurn = {
      respond: {
        stream: [{ error: { message: "Model Not Exist", type: "invalid_request_error" } }],
      },
    };
    const run = await failingTurn([envelope]);
    expect([run.error?.code, run.error?.message, run.requests, run.next, run.ended]).toEqual([
      -32603,
      "the model server reported an error: Model Not Exist",
      1,
      { stopReason: "end_turn" },
      ["error", "end_turn"],
    ]);
  });

  test("a 200 JSON error envelope (no stream) ends the turn with the server's message", async () => {
    const envelope: ScriptedTurn = {
      respond: {
        status: 200,
        json: { error: { message: "Model Not Exist", type: "invalid_request_error" } },
      },
    };
    const run = await failingTurn([envelope]);
    expect([run.error?.code, run.error?.message, run.ended]).toEqual([
      -32603,
      expect.stringContaining("Model Not Exist"),
      ["error", "end_turn"],
    ]);
  });
});
