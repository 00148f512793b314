import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { SessionEvent, sessionEventVariant } from "../../src/session/events.ts";
import { exactShapeCheck } from "../../src/session/exact-shape.ts";

const isExactEvent = exactShapeCheck(sessionEventVariant());
const at = "2026-01-01T00:00:00.000Z";
const diff = { type: "diff", title: "Edit a.ts", path: "/w/a.ts", oldText: null, newText: "x\n" };

/** One event of every type, each exactly as the log writer writes it. */
const CLEAN: Record<string, unknown>[] = [
  { type: "turn_start", seq: 1, at, turnId: "t1" },
  {
    type: "user_message",
    seq: 2,
    at,
    turnId: "t1",
    content: [
      { type: "text", text: "hi" },
      { type: "resource_link", uri: "file:///w/a.ts", name: "a.ts", title: null },
      { type: "resource", uri: "file:///w/b.ts", text: "b", mimeType: "text/plain" },
      { type: "image", mimeType: "image/png", data: "AAAA" },
    ],
  },
  { type: "prompt_submit", seq: 3, at, turnId: "t1" },
  { type: "reasoning", seq: 4, at, turnId: "t1", step: 1, text: "think" },
  { type: "assistant_text", seq: 5, at, turnId: "t1", step: 1, text: "ok" },
  {
    type: "tool_call",
    seq: 6,
    at,
    turnId: "t1",
    step: 1,
    callId: "c1",
    name: "edit_file",
    arguments: "{}",
    intent: { ...diff, locations: [{ path: "/w/a.ts", line: 3 }] },
  },
  {
    type: "tool_result",
    seq: 7,
    at,
    turnId: "t1",
    callId: "c2",
    isError: false,
    output: "done",
    intent: {
      type: "terminal",
      title: "ls",
      command: "ls",
      cwd: "/w",
      output: "a.ts",
      exit: { code: 0, signal: null },
    },
  },
  {
    type: "tool_result",
    seq: 8,
    at,
    turnId: "t1",
    callId: "c3",
    isError: false,
    output: "planned",
    intent: {
      type: "plan",
      title: "Plan",
      entries: [{ content: "one", status: "pending", priority: "high" }],
    },
  },
  { type: "usage", seq: 9, at, turnId: "t1", promptTokens: 10, completionTokens: 2, step: 1 },
  {
    type: "compaction",
    seq: 10,
    at,
    turnId: "t1",
    compactionId: "k1",
    summary: "s",
    upToSeq: 0,
    tokensBefore: 10,
    tokensAfter: 2,
  },
  {
    type: "turn_end",
    seq: 11,
    at,
    turnId: "t1",
    reason: "error",
    error: { code: "x", message: "y" },
  },
  { type: "sandbox_mode", seq: 12, at, mode: "read-only" },
  { type: "approval_policy", seq: 13, at, policy: "never" },
  { type: "model", seq: 14, at, model: "deepseek-chat" },
  { type: "effort", seq: 15, at, effort: "high" },
];

const toolCall = CLEAN[5] as Record<string, unknown>;

/** Values the check must not vouch for: valibot rejects them or outputs something else. */
const NOT_EXACT: [string, unknown][] = [
  ["an unknown key (valibot strips it)", { ...CLEAN[0], extra: 1 }],
  ["an unknown key in a nested object", { ...toolCall, intent: { ...diff, color: "red" } }],
  [
    "an own __proto__ key",
    JSON.parse(`{"type":"model","seq":1,"at":"x","model":"m","__proto__":{}}`),
  ],
  ["a missing required key", { type: "turn_start", seq: 1, at }],
  ["a wrong type", { ...CLEAN[0], turnId: 7 }],
  ["a seq of 0", { ...CLEAN[0], seq: 0 }],
  ["a fractional seq", { ...CLEAN[0], seq: 1.5 }],
  ["an unknown event type", { ...CLEAN[0], type: "turn_begin" }],
  ["no type at all", { seq: 1, at, turnId: "t1" }],
  ["an array", [CLEAN[0]]],
  ["null", null],
  ["a string", "turn_start"],
  ["an unknown effort", { ...CLEAN[14], effort: "medium" }],
  ["null where only optional is allowed", { ...CLEAN[8], step: null }],
  ["a content block of the wrong shape", { ...CLEAN[1], content: [{ type: "text" }] }],
  ["content that is not an array", { ...CLEAN[1], content: { type: "text", text: "x" } }],
  [
    "a location line of 0",
    { ...toolCall, intent: { ...diff, locations: [{ path: "/", line: 0 }] } },
  ],
];

describe("exact shape check", () => {
  test.each(CLEAN.map((event) => [event.type, event]))(
    "vouches for a clean %s event, which valibot outputs unchanged",
    (_type, event) => {
      expect(isExactEvent(event)).toBe(true);
      expect(v.parse(SessionEvent, event)).toEqual(event as SessionEvent);
    },
  );

  test.each(NOT_EXACT)("leaves %s to valibot", (_name, value) => {
    expect(isExactEvent(value)).toBe(false);
    const result = v.safeParse(SessionEvent, value);
    // Either valibot refuses it, or its output differs from the input.
    if (result.success) expect(result.output).not.toEqual(value as SessionEvent);
  });

  test("answers no for schema parts it does not know, so valibot decides", () => {
    const schemas = [
      v.object({ n: v.optional(v.number(), 3) }),
      v.pipe(v.string(), v.trim()),
      v.union([v.string(), v.number()]),
      v.fallback(v.string(), "x"),
    ];
    for (const schema of schemas) expect(exactShapeCheck(schema)("x")).toBe(false);
    expect(exactShapeCheck(v.object({ n: v.optional(v.number(), 3) }))({})).toBe(false);
  });
});
