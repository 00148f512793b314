import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import {
  contextEvents,
  foldContext,
  foldCost,
  latestCompaction,
} from "../../src/session/context.ts";
import { type NewSessionEvent, SessionEvent, type UserContent } from "../../src/session/events.ts";
import { firstSeqOfTurn, foldSettings } from "../../src/session/folds.ts";
import { foldHistory } from "../../src/session/history.ts";
import type { SessionSettings } from "../../src/session/settings.ts";

const DEFAULTS: SessionSettings = {
  model: "deepseek-chat",
  effort: "high",
  knobs: { sandboxMode: "workspace-write", approvalPolicy: "on-request" },
};

const intent = { type: "generic", title: "t", kind: "other" } as const;

/** A deterministic pseudo-random source (mulberry32), so a failure names its seed. */
function random(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/**
 * A long, varied session, one batch of events at a time: answered, cancelled, failed and
 * interrupted turns, tool calls answered in and out of order, late and unknown results, call
 * ids reused across steps, repeated user messages, steps filled in late, images, settings changes, priced usage
 * and compactions (sometimes two in one batch).
 */
function* sessionBatches(seed: number, turns: number): Generator<NewSessionEvent[]> {
  const pick = random(seed);
  let seq = 0;
  const batch = (events: NewSessionEvent[]) => {
    seq += events.length;
    return events;
  };
  const compaction = (turnId: string): NewSessionEvent => ({
    type: "compaction",
    turnId,
    compactionId: `c${seq}`,
    summary: `summary up to ${seq}`,
    upToSeq: pick(seq + 1),
    tokensBefore: 1000,
    tokensAfter: 100,
  });
  let lateResult: NewSessionEvent | undefined;
  for (let t = 0; t < turns; t++) {
    const turnId = `turn-${t}`;
    yield batch([
      { type: "turn_start", turnId },
      { type: "user_message", turnId, content: [{ type: "text", text: `question ${t}` }] },
    ]);
    if (pick(6) === 0) yield batch([{ type: "user_message", turnId, content: userContent(t) }]);
    yield batch([{ type: "prompt_submit", turnId }]);
    if (pick(4) === 0) yield batch([{ type: "model", model: `model-${pick(3)}` }]);
    if (pick(5) === 0) yield batch([{ type: "effort", effort: pick(2) === 0 ? "max" : "off" }]);
    if (pick(7) === 0) yield batch([{ type: "sandbox_mode", mode: "read-only" }]);
    if (pick(7) === 0) yield batch([{ type: "approval_policy", policy: "never" }]);
    if (pick(9) === 0) {
      // An empty step between two user messages (which join), filled in later.
      const step = 99;
      yield batch([{ type: "assistant_text", turnId, step, text: "" }]);
      yield batch([{ type: "user_message", turnId, content: [{ type: "text", text: "more" }] }]);
      yield batch([{ type: "assistant_text", turnId, step, text: "late" }]);
    }
    if (lateResult !== undefined) {
      yield batch([lateResult]);
      lateResult = undefined;
    }
    const ending = pick(6);
    if (ending === 0) {
      yield batch([{ type: "turn_end", turnId, reason: "cancelled" }]);
      continue;
    }
    if (ending === 1) {
      const error = { code: "http_500", message: "server error" };
      yield batch([{ type: "turn_end", turnId, reason: "error", error }]);
      continue;
    }
    if (ending === 2) continue; // interrupted: the next turn starts without this one's end
    const steps = 1 + pick(3);
    for (let step = 1; step <= steps; step++) {
      const usage: NewSessionEvent = {
        type: "usage",
        turnId,
        step,
        promptTokens: 100 * t + step,
        completionTokens: 7,
        costUsd: (pick(1000) + 1) / 3e6,
      };
      yield batch([usage]);
      if (pick(2) === 0) yield batch([{ type: "reasoning", turnId, step, text: `think ${t}` }]);
      yield batch([{ type: "assistant_text", turnId, step, text: pick(5) === 0 ? "" : "a" }]);
      if (step === steps) break;
      const calls = 1 + pick(3);
      const ids = Array.from({ length: calls }, (_, i) => `call-${pick(2) === 0 ? i : t}`);
      for (const callId of ids) {
        const call = {
          type: "tool_call",
          turnId,
          step,
          callId,
          name: "read_file",
          arguments: `{"n":${t}}`,
          intent,
        } as const;
        yield batch([call]);
        // A second delta of the same step after its calls changes a message already folded.
        if (pick(8) === 0) yield batch([{ type: "assistant_text", turnId, step, text: "+" }]);
      }
      const answered = pick(5) === 0 ? ids.slice().reverse() : ids;
      for (const [i, callId] of answered.entries()) {
        const result = {
          type: "tool_result",
          turnId,
          callId,
          isError: false,
          output: `out ${t}.${step}.${i}`,
          intent,
        } as const;
        if (i === 0 && pick(6) === 0) lateResult = result;
        else yield batch([result]);
      }
      if (pick(10) === 0) {
        const unknown = { type: "tool_result", turnId, callId: "nobody", isError: true } as const;
        yield batch([{ ...unknown, output: "stray", intent }]);
      }
    }
    const end: NewSessionEvent = { type: "turn_end", turnId, reason: "end_turn" };
    const compactions = [0, 0, 0, 0, 0, 0, 1, 2][pick(8)] ?? 0;
    yield batch([end, ...Array.from({ length: compactions }, () => compaction(turnId))]);
  }
}

function userContent(t: number): UserContent[] {
  if (t % 2 === 0) return [{ type: "text", text: `again ${t}` }];
  return [
    { type: "text", text: `look ${t}` },
    { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
  ];
}

function logged(event: NewSessionEvent, seq: number): SessionEvent {
  return v.parse(SessionEvent, { ...event, seq, at: "2026-01-01T00:00:00.000Z" });
}

/** The folds over the whole log, written out plainly to compare with. */
function wholeLogSettings(events: readonly SessionEvent[]): SessionSettings {
  let { model, effort } = DEFAULTS;
  let { sandboxMode, approvalPolicy } = DEFAULTS.knobs;
  for (const event of events) {
    if (event.type === "model") model = event.model;
    else if (event.type === "effort") effort = event.effort;
    else if (event.type === "sandbox_mode") sandboxMode = event.mode;
    else if (event.type === "approval_policy") approvalPolicy = event.policy;
  }
  return { model, effort, knobs: { sandboxMode, approvalPolicy } };
}

function wholeLogCost(events: readonly SessionEvent[]): number {
  let total = 0;
  for (const event of events) if (event.type === "usage") total += event.costUsd ?? 0;
  return total;
}

describe("folds kept as a log grows", () => {
  for (const seed of [1, 7, 42]) {
    test(`equal the folds of the whole log after every append (seed ${seed})`, () => {
      const live: SessionEvent[] = [];
      let earlier: { messages: readonly unknown[]; json: string } | undefined;
      let compactions = 0;
      let checks = 0;
      for (const batch of sessionBatches(seed, 120)) {
        for (const event of batch) live.push(logged(event, live.length + 1));
        compactions += batch.filter((event) => event.type === "compaction").length;
        const whole = [...live];

        const messages = foldContext(live);
        expect(JSON.stringify(messages)).toBe(JSON.stringify(foldHistory(contextEvents(whole))));
        // What an earlier call returned is never changed by what came after.
        if (earlier !== undefined) expect(JSON.stringify(earlier.messages)).toBe(earlier.json);
        earlier = { messages, json: JSON.stringify(messages) };

        expect(foldSettings(live, DEFAULTS)).toEqual(wholeLogSettings(whole));
        expect(foldCost(live)).toBe(wholeLogCost(whole));
        expect(latestCompaction(live)).toBe(whole.findLast((e) => e.type === "compaction"));
        const last = live.at(-1);
        if (last !== undefined && "turnId" in last) {
          const first = whole.find((e) => "turnId" in e && e.turnId === last.turnId);
          expect(firstSeqOfTurn(live, last.turnId)).toBe(first?.seq);
        }
        checks++;
      }
      // The generated session exercised what it is meant to.
      expect(checks).toBeGreaterThan(500);
      expect(compactions).toBeGreaterThan(3);
    });
  }

  test("an array changed other than by appending is folded anew", () => {
    const events = [...sessionBatches(3, 10)].flat();
    const live = events.map((event, i) => logged(event, i + 1));
    const before = foldContext(live);
    expect(before.length).toBeGreaterThan(0);
    // Cut back and grown again with other events to the same length: the last folded event
    // is no longer where it was.
    const cut = live.length - 5;
    live.length = cut;
    for (let i = 0; i < 5; i++) {
      live.push(logged({ type: "user_message", turnId: "other", content: [] }, cut + i + 1));
    }
    live.push(logged({ type: "model", model: "after-cut" }, live.length + 1));
    expect(JSON.stringify(foldContext(live))).toBe(
      JSON.stringify(foldHistory(contextEvents([...live]))),
    );
    expect(foldSettings(live, DEFAULTS)).toEqual(wholeLogSettings([...live]));
    // Shrunk only.
    live.length = 3;
    expect(JSON.stringify(foldContext(live))).toBe(
      JSON.stringify(foldHistory(contextEvents([...live]))),
    );
    expect(foldCost(live)).toBe(wholeLogCost([...live]));
  });
});
