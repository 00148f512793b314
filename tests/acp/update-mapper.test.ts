import { describe, expect, test } from "bun:test";
import { TEXT_PROGRESS_INTERVAL_MS, createUpdateMapper } from "../../src/acp/update-mapper.ts";
import type { LiveEvent } from "../../src/agent/types.ts";
import type { TerminalIntent } from "../../src/render/intent.ts";
import { updateProblems } from "../support/acp-schema.ts";

const intent: TerminalIntent = {
  type: "terminal",
  title: "Run `make`",
  command: "make",
  cwd: "/p",
  output: "",
};
const call: LiveEvent = {
  type: "tool_call",
  turnId: "t",
  callId: "c",
  name: "bash",
  rawInput: { command: "make" },
  intent,
};
const progress = (chunk: string): LiveEvent => ({
  type: "tool_progress",
  turnId: "t",
  callId: "c",
  chunk,
});

describe("the live update mapper", () => {
  test("maps deltas, usage and a turn's events in order; empty deltas vanish", () => {
    const mapper = createUpdateMapper({ terminalOutput: false });
    const events: LiveEvent[] = [
      { type: "turn_start", turnId: "t", content: [{ type: "text", text: "hi" }] },
      { type: "reasoning_delta", turnId: "t", text: "hmm" },
      { type: "text_delta", turnId: "t", text: "" },
      { type: "text_delta", turnId: "t", text: "hello" },
      {
        type: "usage",
        turnId: "t",
        usage: { promptTokens: 1200.7, completionTokens: 5 },
        contextWindow: 128000,
        contextUsed: 1205.7,
        costUsd: 0.0125,
      },
      { type: "turn_end", turnId: "t", reason: "end_turn" },
    ];
    const updates = events.flatMap((e) => mapper.map(e));
    expect(updates).toEqual([
      { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } },
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello" } },
      {
        sessionUpdate: "usage_update",
        used: 1205,
        size: 128000,
        cost: { amount: 0.0125, currency: "USD" },
      },
    ]);
    expect(updateProblems(updates)).toEqual([]);
  });

  test("a user's message (sent by replay only) is one user_message_chunk per block", () => {
    const mapper = createUpdateMapper({ terminalOutput: false });
    const updates = mapper.map({
      type: "user_message",
      turnId: "t",
      content: [
        { type: "text", text: "look" },
        { type: "resource_link", uri: "file:///p/a.ts", name: "a.ts", title: null },
        { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
      ],
    });
    expect(updates).toEqual([
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "look" } },
      {
        sessionUpdate: "user_message_chunk",
        content: { type: "resource_link", uri: "file:///p/a.ts", name: "a.ts" },
      },
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "[image]" } },
    ]);
    expect(updateProblems(updates)).toEqual([]);
  });

  test("with terminal cards, progress streams to the card with CRLF line ends", () => {
    const mapper = createUpdateMapper({ terminalOutput: true });
    mapper.map(call);
    expect(mapper.map(progress("one\ntwo\r\n"))).toEqual([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "c",
        _meta: { terminal_output: { terminal_id: "c", data: "one\r\ntwo\r\n" } },
      },
    ]);
    const end = mapper.map({
      type: "tool_result",
      turnId: "t",
      callId: "c",
      isError: false,
      output: "one\ntwo\n",
      intent: { ...intent, output: "one\ntwo\n", exit: { code: 0, signal: null } },
    });
    // Streamed already: only the exit follows.
    expect(end).toHaveLength(1);
    expect(end[0]).toMatchObject({
      status: "completed",
      _meta: { terminal_exit: { exit_code: 0 } },
    });
  });

  test("without terminal cards, progress is resent as text at most every interval", () => {
    let clock = 0;
    const mapper = createUpdateMapper({ terminalOutput: false, now: () => clock });
    mapper.map(call);
    expect(mapper.map(progress("a\n"))).toEqual([]);
    clock = TEXT_PROGRESS_INTERVAL_MS;
    const first = mapper.map(progress("b\n"));
    expect(first).toEqual([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "c",
        content: [{ type: "content", content: { type: "text", text: "```sh\n$ make\na\nb\n```" } }],
      },
    ]);
    clock += 1;
    expect(mapper.map(progress("c\n"))).toEqual([]);
    expect(updateProblems(first)).toEqual([]);
  });

  test("progress of a call that is not a terminal (a task's steps) is its content so far", () => {
    const mapper = createUpdateMapper({ terminalOutput: true });
    mapper.map({ ...call, intent: { type: "generic", title: "x", kind: "think" } });
    expect(mapper.map(progress(""))).toEqual([]);
    mapper.map(progress("Read a.ts\n"));
    expect(mapper.map(progress("grep 'x' (2 matches)\n"))).toEqual([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "c",
        content: [
          { type: "content", content: { type: "text", text: "Read a.ts\ngrep 'x' (2 matches)\n" } },
        ],
      },
    ]);
  });

  test("the end of a turn fails the calls it left open", () => {
    const mapper = createUpdateMapper({ terminalOutput: false });
    mapper.map(call);
    mapper.map({ ...call, turnId: "other", callId: "d" });
    const updates = mapper.map({ type: "turn_end", turnId: "t", reason: "cancelled" });
    expect(updates).toEqual([
      expect.objectContaining({
        sessionUpdate: "tool_call_update",
        toolCallId: "c",
        status: "failed",
      }),
    ]);
    expect(mapper.closeAll()).toEqual([
      expect.objectContaining({ toolCallId: "d", status: "failed" }),
    ]);
    expect(mapper.closeAll()).toEqual([]);
  });

  test("a compaction is compaction_update for clients that take it, else a note only when it ends", () => {
    const states: LiveEvent[] = [
      { type: "compaction", turnId: "t", compactionId: "k", status: "in_progress" },
      {
        type: "compaction",
        turnId: "t",
        compactionId: "k",
        status: "completed",
        summary: "S",
        tokensBefore: 9000,
        tokensAfter: 1200,
      },
      { type: "compaction", turnId: "t", compactionId: "j", status: "failed", error: "no summary" },
      { type: "compaction", turnId: "t", compactionId: "i", status: "cancelled" },
    ];
    const supported = createUpdateMapper({ terminalOutput: false, compaction: true });
    expect(states.flatMap((e) => supported.map(e))).toEqual([
      { sessionUpdate: "compaction_update", compactionId: "k", status: "in_progress" },
      {
        sessionUpdate: "compaction_update",
        compactionId: "k",
        status: "completed",
        summary: [{ type: "text", text: "S" }],
      },
      {
        sessionUpdate: "compaction_update",
        compactionId: "j",
        status: "failed",
        error: "no summary",
      },
      { sessionUpdate: "compaction_update", compactionId: "i", status: "cancelled" },
    ]);
    const plain = createUpdateMapper({ terminalOutput: false });
    expect(states.flatMap((e) => plain.map(e))).toEqual([
      {
        sessionUpdate: "agent_message_chunk",
        content: {
          type: "text",
          text: "\n\n*Context compacted: the earlier conversation is now a summary (about 9,000 → 1,200 tokens).*\n\n",
        },
      },
      {
        sessionUpdate: "agent_message_chunk",
        content: {
          type: "text",
          text: "\n\n*The context could not be compacted: no summary.*\n\n",
        },
      },
    ]);
  });
});
