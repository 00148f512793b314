import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import {
  compactionBoundaries,
  contextUsed,
  estimateContextTokens,
  foldContext,
  foldCost,
  summaryMessageText,
} from "../../src/session/context.ts";
import { type NewSessionEvent, SessionEvent } from "../../src/session/events.ts";

function logOf(events: NewSessionEvent[]): SessionEvent[] {
  return events.map((event, index) =>
    v.parse(SessionEvent, { ...event, seq: index + 1, at: "2026-01-01T00:00:00.000Z" }),
  );
}

const intent = { type: "generic", title: "t", kind: "other" } as const;
const user = (turnId: string, body: string): NewSessionEvent => ({
  type: "user_message",
  turnId,
  content: [{ type: "text", text: body }],
});
const call = (turnId: string, step: number, callId: string): NewSessionEvent => ({
  type: "tool_call",
  turnId,
  step,
  callId,
  name: "read_file",
  arguments: "{}",
  intent,
});
const result = (turnId: string, callId: string): NewSessionEvent => ({
  type: "tool_result",
  turnId,
  callId,
  isError: false,
  output: "ok",
  intent,
});
const said = (turnId: string, step: number, body: string): NewSessionEvent => ({
  type: "assistant_text",
  turnId,
  step,
  text: body,
});

describe("the compacted context", () => {
  test("cuts fall between items, never between a call and its result; a crashed turn's open call does not block", () => {
    const events = logOf([
      user("t1", "one"), // 1
      call("t1", 1, "a"), // 2
      call("t1", 1, "b"), // 3
      result("t1", "a"), // 4
      result("t1", "b"), // 5
      said("t1", 2, "done"), // 6
      user("t2", "two"), // 7
      call("t2", 1, "c"), // 8: the process crashed here
      user("t3", "three"), // 9
    ]);
    expect(compactionBoundaries(events)).toEqual([1, 5, 6, 7, 8, 9]);
  });

  test("the fold reads the latest summary, then the events after its cut; later cuts start after it", () => {
    const events = logOf([
      user("t1", "one"), // 1
      said("t1", 1, "first"), // 2
      user("t2", "two"), // 3
      said("t2", 1, "second"), // 4
      {
        type: "compaction",
        turnId: "t3",
        compactionId: "k",
        summary: "S",
        upToSeq: 2,
        tokensBefore: 100,
        tokensAfter: 40,
      }, // 5
    ]);
    expect(foldContext(events)).toEqual([
      { role: "user", content: `${summaryMessageText("S")}\n\ntwo` },
      { role: "assistant", content: "second", reasoning: "", toolCalls: [] },
    ]);
    expect(compactionBoundaries(events)).toEqual([3, 4]);
    expect(contextUsed(events)).toBe(40);
  });

  test("the estimate is the last reported usage plus what came after, not counting that step's own output", () => {
    const events = logOf([
      user("t1", "one"),
      {
        type: "usage",
        turnId: "t1",
        step: 1,
        promptTokens: 1000,
        completionTokens: 50,
        costUsd: 0.5,
      },
      call("t1", 1, "a"),
      result("t1", "a"),
      {
        type: "usage",
        turnId: "t1",
        promptTokens: 9,
        completionTokens: 9,
        compaction: true,
        costUsd: 0.25,
      },
    ]);
    // The result "ok" is one token plus the message overhead of four.
    expect(estimateContextTokens(events, 7)).toBe(1000 + 50 + 5);
    expect(contextUsed(events)).toBe(1050);
    expect(foldCost(events)).toBe(0.75);
  });
});
