import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import { createAcpQuestioner, questionsToForm } from "../../src/acp/elicitation.ts";
import { clientOptionsOf } from "../../src/acp/capabilities.ts";
import type { AcpFormTarget } from "../../src/acp/types.ts";
import type { QuestionRequest } from "../../src/interaction/types.ts";
import { createAcpValidator } from "../support/acp-schema.ts";
import { databaseQuestion, featuresQuestion, sampleQuestions } from "./fakes.ts";

const request: QuestionRequest = {
  sessionId: "s-1",
  toolCallId: "call-1",
  questions: sampleQuestions,
};

/** A target that records each form and answers with `answer`. */
function target(
  answer: (
    params: acp.CreateElicitationRequest,
    signal: AbortSignal,
  ) => Promise<acp.CreateElicitationResponse>,
  canElicit = true,
): AcpFormTarget & { readonly asked: acp.CreateElicitationRequest[] } {
  const asked: acp.CreateElicitationRequest[] = [];
  return {
    asked,
    canElicitForm: canElicit,
    elicit(params, signal) {
      asked.push(params);
      return answer(params, signal);
    },
  };
}

const accepting = () =>
  target(async () => ({ action: "accept", content: { q1: "SQLite", q2: ["Billing"] } }));

describe("createAcpQuestioner", () => {
  test("can ask only in registered sessions whose client shows forms, until unregistered", () => {
    const questioner = createAcpQuestioner();
    expect(questioner.canAsk("s-1")).toBe(false);
    const unregister = questioner.register("s-1", accepting());
    questioner.register(
      "s-2",
      target(async () => ({ action: "decline" }), false),
    );
    expect([questioner.canAsk("s-1"), questioner.canAsk("s-2"), questioner.canAsk("s-3")]).toEqual([
      true,
      false,
      false,
    ]);
    unregister();
    expect(questioner.canAsk("s-1")).toBe(false);
  });

  test("an old registration's unregister leaves a newer one in place", () => {
    const questioner = createAcpQuestioner();
    const first = questioner.register("s-1", accepting());
    questioner.register("s-1", accepting());
    first();
    expect(questioner.canAsk("s-1")).toBe(true);
  });

  test("sends one form scoped to the session and tool call, and returns the answers", async () => {
    const questioner = createAcpQuestioner();
    const client = accepting();
    questioner.register("s-1", client);
    const outcome = await questioner.ask(request, new AbortController().signal);
    expect(client.asked).toEqual([
      { ...questionsToForm(sampleQuestions), sessionId: "s-1", toolCallId: "call-1" },
    ]);
    expect(outcome).toEqual({
      outcome: "answered",
      answers: [
        { question: databaseQuestion.question, selected: ["SQLite"] },
        { question: featuresQuestion.question, selected: ["Billing"] },
      ],
    });
  });

  test("a decline or a cancel from the client is a decline", async () => {
    for (const action of ["decline", "cancel"]) {
      const questioner = createAcpQuestioner();
      questioner.register(
        "s-1",
        target(async () => ({ action })),
      );
      expect(await questioner.ask(request, new AbortController().signal)).toEqual({
        outcome: "declined",
      });
    }
  });

  test("a client that answers with an error is a decline", async () => {
    const questioner = createAcpQuestioner();
    questioner.register(
      "s-1",
      target(() => Promise.reject(acp.RequestError.internalError({ details: "boom" }))),
    );
    expect(await questioner.ask(request, new AbortController().signal)).toEqual({
      outcome: "declined",
    });
  });

  test("a client that never answers: the turn's abort settles it cancelled at once", async () => {
    const questioner = createAcpQuestioner();
    const seen = Promise.withResolvers<AbortSignal>();
    questioner.register(
      "s-1",
      target((_params, signal) => {
        seen.resolve(signal);
        return new Promise(() => {});
      }),
    );
    const turn = new AbortController();
    const asking = questioner.ask(request, turn.signal);
    const signal = await seen.promise;
    turn.abort();
    expect(await asking).toEqual({ outcome: "cancelled" });
    expect(signal.aborted).toBe(true);
  });

  test("an aborted turn asks nothing; an unknown session is unavailable", async () => {
    const questioner = createAcpQuestioner();
    const client = accepting();
    questioner.register("s-1", client);
    expect(await questioner.ask(request, AbortSignal.abort())).toEqual({ outcome: "cancelled" });
    expect(
      await questioner.ask({ ...request, sessionId: "s-9" }, new AbortController().signal),
    ).toEqual({
      outcome: "unavailable",
      reason: "the client cannot show forms",
    });
    expect(client.asked).toEqual([]);
  });
});

describe("the client's form capability", () => {
  test("only a present, non-null elicitation.form counts", () => {
    const cases: [acp.ClientCapabilities | undefined, boolean][] = [
      [undefined, false],
      [{}, false],
      [{ elicitation: {} }, false],
      [{ elicitation: { form: null } }, false],
      [{ elicitation: { url: {} } }, false],
      [{ elicitation: { form: {} } }, true],
      [{ elicitation: { form: {}, url: {} } }, true],
    ];
    expect(cases.map(([capabilities]) => clientOptionsOf(capabilities).elicitForm)).toEqual(
      cases.map(([, expected]) => expected),
    );
  });
});

type ElicitHandler = (
  params: acp.CreateElicitationRequest,
  signal: AbortSignal,
) => acp.CreateElicitationResponse | Promise<acp.CreateElicitationResponse>;

/**
 * Runs `op` with the agent side of an in-process ACP connection whose client answers
 * `elicitation/create` with `onElicit`; returns the result and every message the agent wrote.
 */
async function overTheWire<T>(
  onElicit: ElicitHandler,
  op: (client: acp.AgentContext) => Promise<T>,
) {
  const toClient = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
  const toAgent = new TransformStream<acp.AnyMessage, acp.AnyMessage>();
  const sent: acp.AnyMessage[] = [];
  const writer = toClient.writable.getWriter();
  const agentSide: acp.Stream = {
    readable: toAgent.readable,
    writable: new WritableStream({
      write(message) {
        sent.push(structuredClone(message));
        return writer.write(message);
      },
      close: () => writer.close(),
    }),
  };
  const client = acp
    .client({ name: "test-client" })
    .onRequest(acp.methods.client.elicitation.create, ({ params, signal }) =>
      onElicit(params, signal),
    )
    .connect({ readable: toClient.readable, writable: toAgent.writable });
  try {
    const result = await acp.agent({ name: "test-agent" }).connectWith(agentSide, op);
    return { result, sent };
  } finally {
    client.close();
  }
}

function wireProblems(sent: readonly acp.AnyMessage[]): string[] {
  const validator = createAcpValidator();
  return sent.flatMap((message) => validator.outbound(message));
}

describe("questions over a real ACP connection", () => {
  const ask = (onElicit: ElicitHandler, signal: AbortSignal) =>
    overTheWire(onElicit, (client) => {
      const questioner = createAcpQuestioner();
      questioner.register("s-1", {
        canElicitForm: true,
        elicit: (params, cancellation) =>
          client.request(acp.methods.client.elicitation.create, params, {
            cancellationSignal: cancellation,
            stopWaitingOnCancel: true,
          }),
      });
      return questioner.ask(request, signal);
    });

  test("the form reaches the client as a valid elicitation/create and its answer comes back", async () => {
    const received: acp.CreateElicitationRequest[] = [];
    const { result, sent } = await ask((params) => {
      received.push(params);
      return { action: "accept", content: { q1: "PostgreSQL", q2_other: "only auth, for now" } };
    }, new AbortController().signal);
    expect(result).toEqual({
      outcome: "answered",
      answers: [
        { question: databaseQuestion.question, selected: ["PostgreSQL"] },
        { question: featuresQuestion.question, selected: [], custom: "only auth, for now" },
      ],
    });
    expect(received).toEqual([
      { ...questionsToForm(sampleQuestions), sessionId: "s-1", toolCallId: "call-1" },
    ]);
    expect(sent.map((m) => ("method" in m ? m.method : undefined))).toEqual(["elicitation/create"]);
    expect(wireProblems(sent)).toEqual([]);
  });

  test("a client error response is a decline", async () => {
    const { result } = await ask(() => {
      throw acp.RequestError.invalidParams({ reason: "form mode not supported" });
    }, new AbortController().signal);
    expect(result).toEqual({ outcome: "declined" });
  });

  test("a cancel while the form is open sends $/cancel_request and settles cancelled", async () => {
    const turn = new AbortController();
    const { result, sent } = await ask(() => {
      turn.abort();
      return new Promise(() => {});
    }, turn.signal);
    expect(result).toEqual({ outcome: "cancelled" });
    const methods = sent.map((m) => ("method" in m ? m.method : undefined));
    expect(methods).toEqual(["elicitation/create", "$/cancel_request"]);
    expect(wireProblems(sent)).toEqual([]);
  });
});
