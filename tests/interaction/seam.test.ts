import { describe, expect, test } from "bun:test";
import { createInteractionSeam } from "../../src/interaction/seam.ts";
import type { InteractionProvider, QuestionRequest } from "../../src/interaction/types.ts";
import { recordingQuestioner, sampleQuestions } from "./fakes.ts";

const request: QuestionRequest = {
  sessionId: "s-1",
  toolCallId: "call-1",
  questions: sampleQuestions,
};
const live = () => new AbortController().signal;

describe("the interaction seam", () => {
  test("routes to the first provider that can ask in the session", async () => {
    const elsewhere = recordingQuestioner({ outcome: "declined" }, ["s-2"]);
    const first = recordingQuestioner({ outcome: "answered", answers: [] }, ["s-1"]);
    const second = recordingQuestioner({ outcome: "declined" });
    const seam = createInteractionSeam({ providers: [elsewhere, first, second] });
    expect(await seam.ask(request, live())).toEqual({ outcome: "answered", answers: [] });
    expect([elsewhere.requests.length, first.requests.length, second.requests.length]).toEqual([
      0, 1, 0,
    ]);
    expect([seam.canAsk("s-1"), seam.canAsk("s-3")]).toEqual([true, true]);
  });

  test("without a provider for the session nobody is asked: unavailable at once", async () => {
    const seam = createInteractionSeam({
      providers: [recordingQuestioner({ outcome: "declined" }, ["s-2"])],
    });
    expect(seam.canAsk("s-1")).toBe(false);
    expect(await seam.ask(request, live())).toEqual({
      outcome: "unavailable",
      reason: "nobody can be asked in this session",
    });
  });

  test("a provider that throws is a decline, or cancelled once the turn was aborted", async () => {
    const errors: unknown[] = [];
    const turn = new AbortController();
    const broken: InteractionProvider = {
      canAsk: () => true,
      ask: async (_request, signal) => {
        throw new Error(signal.aborted ? "aborted" : "broken");
      },
    };
    const seam = createInteractionSeam({
      providers: [broken],
      onError: (error) => errors.push(error),
    });
    expect(await seam.ask(request, turn.signal)).toEqual({ outcome: "declined" });
    const aborting: InteractionProvider = {
      canAsk: () => true,
      ask: async () => {
        turn.abort();
        throw new Error("aborted");
      },
    };
    const cancelled = createInteractionSeam({ providers: [aborting] });
    expect(await cancelled.ask(request, turn.signal)).toEqual({ outcome: "cancelled" });
    expect(errors).toHaveLength(1);
  });

  test("an aborted turn asks nobody", async () => {
    const provider = recordingQuestioner({ outcome: "declined" });
    const seam = createInteractionSeam({ providers: [provider] });
    expect(await seam.ask(request, AbortSignal.abort())).toEqual({ outcome: "cancelled" });
    expect(provider.requests).toEqual([]);
  });
});
