import { describe, expect, test } from "bun:test";
import type { ChatMessage } from "../../src/llm/types.ts";
import * as v from "valibot";
import { type NewSessionEvent, SessionEvent } from "../../src/session/events.ts";
import { foldHistory, foldSettings, foldTurns, sessionTitle } from "../../src/session/folds.ts";
import { CANCELLED_TOOL_OUTPUT } from "../../src/session/history.ts";

/** Numbers and validates events the way the log does. */
function logOf(events: NewSessionEvent[]): SessionEvent[] {
  return events.map((event, index) =>
    v.parse(SessionEvent, { ...event, seq: index + 1, at: "2026-01-01T00:00:00.000Z" }),
  );
}

const intent = { type: "generic", title: "t", kind: "other" } as const;
const call = (
  turnId: string,
  step: number,
  callId: string,
  name = "read_file",
): NewSessionEvent => ({
  type: "tool_call",
  turnId,
  step,
  callId,
  name,
  arguments: `{"id":"${callId}"}`,
  intent,
});
const result = (turnId: string, callId: string, output: string): NewSessionEvent => ({
  type: "tool_result",
  turnId,
  callId,
  isError: false,
  output,
  intent,
});
const text = (turnId: string, body: string): NewSessionEvent => ({
  type: "user_message",
  turnId,
  content: [{ type: "text", text: body }],
});

/** Two turns: a two-step tool turn that ended, then one cut off by a crash mid-tool. */
const SESSION: NewSessionEvent[] = [
  { type: "model", model: "deepseek-chat" },
  { type: "turn_start", turnId: "t1" },
  {
    type: "user_message",
    turnId: "t1",
    content: [
      { type: "text", text: "look at" },
      { type: "resource_link", uri: "file:///w/a.ts", name: "a.ts" },
      { type: "text", text: "please" },
    ],
  },
  { type: "prompt_submit", turnId: "t1" },
  { type: "sandbox_mode", mode: "read-only" },
  { type: "reasoning", turnId: "t1", step: 0, text: "read both" },
  call("t1", 0, "c1"),
  call("t1", 0, "c2"),
  result("t1", "c2", "two"),
  result("t1", "c1", "one"),
  { type: "usage", turnId: "t1", promptTokens: 1, completionTokens: 1 },
  { type: "assistant_text", turnId: "t1", step: 1, text: "Done." },
  { type: "turn_end", turnId: "t1", reason: "end_turn" },
  { type: "turn_start", turnId: "t2" },
  text("t2", "now edit"),
  { type: "prompt_submit", turnId: "t2" },
  { type: "effort", effort: "high" },
  { type: "assistant_text", turnId: "t2", step: 0, text: "Editing." },
  call("t2", 0, "c3", "edit_file"),
];

/** Every assistant tool call is answered, right after it, by exactly one tool message. */
function checkToolPairing(messages: readonly ChatMessage[]) {
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      let back = index - 1;
      while (messages[back]?.role === "tool") back -= 1;
      const owner = messages[back];
      expect(owner?.role).toBe("assistant");
    }
    if (message.role !== "assistant") return;
    const answers = messages.slice(index + 1, index + 1 + message.toolCalls.length);
    expect(
      answers.map((answer) => (answer.role === "tool" ? answer.toolCallId : answer.role)),
    ).toEqual(message.toolCalls.map((toolCall) => toolCall.id));
    expect(messages[index + 1 + message.toolCalls.length]?.role).not.toBe("tool");
  });
}

describe("foldTurns", () => {
  test("groups a session into turns; a turn without an end is interrupted", () => {
    const events = logOf([
      ...SESSION,
      { type: "turn_start", turnId: "t3" },
      text("t3", "third"),
      {
        type: "turn_end",
        turnId: "t3",
        reason: "error",
        error: { code: "auth", message: "bad key" },
      },
    ]);
    const turns = foldTurns(events);
    expect(turns.map(({ turnId, reason, error }) => ({ turnId, reason, error }))).toEqual([
      { turnId: "t1", reason: "end_turn", error: undefined },
      { turnId: "t2", reason: "interrupted", error: undefined },
      { turnId: "t3", reason: "error", error: { code: "auth", message: "bad key" } },
    ]);
    expect(turns[1]?.content).toEqual([{ type: "text", text: "now edit" }]);
    expect(turns[0]?.events.map((event) => event.seq)).toEqual([
      2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13,
    ]);
    expect(foldTurns([])).toEqual([]);
  });
});

describe("foldSettings", () => {
  const defaults = {
    model: "deepseek-reasoner",
    effort: "low",
    knobs: { sandboxMode: "workspace-write", approvalPolicy: "on-request" },
  } as const;

  test("the latest logged values win over the defaults", () => {
    expect(foldSettings([], defaults)).toEqual(defaults);
    const events = logOf([
      ...SESSION,
      { type: "approval_policy", policy: "never" },
      { type: "model", model: "m2" },
    ]);
    expect(foldSettings(events, defaults)).toEqual({
      model: "m2",
      effort: "high",
      knobs: { sandboxMode: "read-only", approvalPolicy: "never" },
    });
  });
});

describe("foldHistory", () => {
  test.each([
    [
      "cancelled",
      { reason: "cancelled" as const },
      "(No answer: the user cancelled this turn before any reply.)",
    ],
    [
      "failed",
      { reason: "error" as const, error: { code: "network", message: "cannot reach example.com" } },
      "(No answer: this turn failed before any reply: cannot reach example.com.)",
    ],
    ["interrupted", undefined, "(No answer: this turn ended before any reply.)"],
  ])(
    "a turn %s before the model answered stays its own turn, marked unanswered",
    (_name, end, note) => {
      const events = logOf([
        { type: "turn_start", turnId: "t1" },
        text("t1", "first"),
        { type: "prompt_submit", turnId: "t1" },
        ...(end === undefined ? [] : [{ type: "turn_end" as const, turnId: "t1", ...end }]),
        { type: "turn_start", turnId: "t2" },
        text("t2", "second"),
        { type: "prompt_submit", turnId: "t2" },
      ]);
      expect(foldHistory(events)).toEqual([
        { role: "user", content: "first" },
        { role: "assistant", content: note, reasoning: "", toolCalls: [] },
        { role: "user", content: "second" },
      ]);
    },
  );

  test("a turn cancelled after the model said something keeps what it said, with no note", () => {
    const events = logOf([
      { type: "turn_start", turnId: "t1" },
      text("t1", "first"),
      { type: "prompt_submit", turnId: "t1" },
      { type: "assistant_text", turnId: "t1", step: 1, text: "partial" },
      { type: "turn_end", turnId: "t1", reason: "cancelled" },
      { type: "turn_start", turnId: "t2" },
      text("t2", "second"),
    ]);
    expect(foldHistory(events)).toEqual([
      { role: "user", content: "first" },
      { role: "assistant", content: "partial", reasoning: "", toolCalls: [] },
      { role: "user", content: "second" },
    ]);
  });

  test("folds steps into assistant messages and answers every call, synthesising the missing", () => {
    expect(foldHistory(logOf(SESSION))).toEqual([
      { role: "user", content: "look at\n\n[a.ts](file:///w/a.ts)\n\nplease" },
      {
        role: "assistant",
        content: "",
        reasoning: "read both",
        toolCalls: [
          { id: "c1", name: "read_file", arguments: '{"id":"c1"}' },
          { id: "c2", name: "read_file", arguments: '{"id":"c2"}' },
        ],
      },
      { role: "tool", toolCallId: "c1", content: "one" },
      { role: "tool", toolCallId: "c2", content: "two" },
      { role: "assistant", content: "Done.", reasoning: "", toolCalls: [] },
      { role: "user", content: "now edit" },
      {
        role: "assistant",
        content: "Editing.",
        reasoning: "",
        toolCalls: [{ id: "c3", name: "edit_file", arguments: '{"id":"c3"}' }],
      },
      { role: "tool", toolCallId: "c3", content: CANCELLED_TOOL_OUTPUT },
    ]);
  });

  test("every prefix of a log folds to a history whose tool calls are all answered", () => {
    for (let length = 0; length <= SESSION.length; length++) {
      checkToolPairing(foldHistory(logOf(SESSION.slice(0, length))));
    }
  });

  test("ids reused across steps pair with their own step; orphan results and empty steps vanish", () => {
    const reused: ChatMessage = {
      role: "assistant",
      content: "",
      reasoning: "",
      toolCalls: [{ id: "call_0", name: "read_file", arguments: '{"id":"call_0"}' }],
    };
    const messages = foldHistory(
      logOf([
        text("t1", "go"),
        call("t1", 0, "call_0"),
        result("t1", "call_0", "first"),
        { type: "assistant_text", turnId: "t1", step: 1, text: "" },
        call("t1", 2, "call_0"),
        result("t1", "ghost", "nobody asked"),
        { type: "turn_end", turnId: "t1", reason: "cancelled" },
        text("t2", "again"),
        result("t2", "call_0", "wrong turn"),
      ]),
    );
    expect(messages).toEqual([
      { role: "user", content: "go" },
      reused,
      { role: "tool", toolCallId: "call_0", content: "first" },
      reused,
      { role: "tool", toolCallId: "call_0", content: CANCELLED_TOOL_OUTPUT },
      { role: "user", content: "again" },
    ]);
    checkToolPairing(messages);
  });

  test("text with U+2028 and blocks split across events reach the model intact", () => {
    const messages = foldHistory(
      logOf([
        text("t1", "a\u2028b"),
        { type: "reasoning", turnId: "t1", step: 0, text: "think " },
        { type: "reasoning", turnId: "t1", step: 0, text: "more" },
        { type: "assistant_text", turnId: "t1", step: 0, text: "x\u2029y" },
      ]),
    );
    expect(messages).toEqual([
      { role: "user", content: "a\u2028b" },
      { role: "assistant", content: "x\u2029y", reasoning: "think more", toolCalls: [] },
    ]);
  });
});

describe("sessionTitle", () => {
  test.each([
    [
      "the first non-empty line, trimmed",
      [text("t", "\n   fix   the build \nmore")],
      "fix the build",
    ],
    ["at most 80 characters", [text("t", "y".repeat(200))], `${"y".repeat(79)}…`],
    ["(empty) without a user message", [{ type: "turn_start", turnId: "t" }], "(empty)"],
    ["(empty) for blank text", [text("t", "  \n ")], "(empty)"],
    [
      "linked names when there is no text",
      [
        {
          type: "user_message",
          turnId: "t",
          content: [{ type: "resource_link", uri: "file:///a", name: "a" }],
        },
      ],
      "@a",
    ],
    ["the first user message only", [text("t", "first"), text("u", "second")], "first"],
  ] satisfies [string, NewSessionEvent[], string][])("%s", (_name, events, title) => {
    expect(sessionTitle(logOf(events))).toBe(title);
  });
});
