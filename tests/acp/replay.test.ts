import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { replayUpdates } from "../../src/acp/replay.ts";
import { createUpdateMapper } from "../../src/acp/update-mapper.ts";
import type { LiveEvent } from "../../src/agent/types.ts";
import type { SessionEvent } from "../../src/session/events.ts";
import type { TerminalIntent } from "../../src/render/intent.ts";
import { updateProblems } from "../support/acp-schema.ts";
import { createTestAgent } from "../support/agent.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";

const at = "2026-01-01T00:00:00.000Z";
const ls: TerminalIntent = {
  type: "terminal",
  title: "Run `ls`",
  command: "ls",
  cwd: "/p",
  output: "",
};
const events: SessionEvent[] = [
  { type: "turn_start", seq: 1, at, turnId: "t1" },
  {
    type: "user_message",
    seq: 2,
    at,
    turnId: "t1",
    content: [
      { type: "text", text: "look at" },
      { type: "resource_link", uri: "file:///p/a.ts", name: "a.ts", title: null },
    ],
  },
  { type: "prompt_submit", seq: 3, at, turnId: "t1" },
  { type: "model", seq: 4, at, model: "m" },
  { type: "reasoning", seq: 5, at, turnId: "t1", step: 1, text: "think" },
  { type: "assistant_text", seq: 6, at, turnId: "t1", step: 1, text: "ok" },
  {
    type: "tool_call",
    seq: 7,
    at,
    turnId: "t1",
    step: 1,
    callId: "c1",
    name: "bash",
    arguments: '{"command":"ls"}',
    intent: ls,
  },
  {
    type: "tool_result",
    seq: 8,
    at,
    turnId: "t1",
    callId: "c1",
    isError: false,
    output: "a.ts\n",
    intent: { ...ls, output: "a.ts\n", exit: { code: 0, signal: null } },
  },
  { type: "usage", seq: 9, at, turnId: "t1", promptTokens: 10, completionTokens: 2 },
  { type: "turn_end", seq: 10, at, turnId: "t1", reason: "end_turn" },
  { type: "turn_start", seq: 11, at, turnId: "t2" },
  { type: "user_message", seq: 12, at, turnId: "t2", content: [{ type: "text", text: "again" }] },
  {
    type: "tool_call",
    seq: 13,
    at,
    turnId: "t2",
    step: 1,
    callId: "c2",
    name: "bash",
    arguments: "not json",
    intent: ls,
  },
];

describe("replay", () => {
  test("rebuilds the transcript: user blocks, thoughts, text, tool calls with final status", () => {
    const updates = replayUpdates(events, { terminalOutput: false });
    expect(
      updates.map((u) => [
        u.sessionUpdate,
        "toolCallId" in u ? u.toolCallId : "",
        "status" in u ? u.status : "",
      ]),
    ).toEqual([
      ["user_message_chunk", "", ""],
      ["user_message_chunk", "", ""],
      ["agent_thought_chunk", "", ""],
      ["agent_message_chunk", "", ""],
      ["tool_call", "c1", "pending"],
      ["tool_call_update", "c1", "completed"],
      ["user_message_chunk", "", ""],
      ["tool_call", "c2", "pending"],
      // The second turn was interrupted by a crash: its open call failed.
      ["tool_call_update", "c2", "failed"],
    ]);
    expect(updates[1]).toEqual({
      sessionUpdate: "user_message_chunk",
      content: { type: "resource_link", uri: "file:///p/a.ts", name: "a.ts" },
    });
    expect(updates[7]).toMatchObject({ rawInput: "not json" });
    expect(updateProblems(updates)).toEqual([]);
  });

  test("with terminal cards a replayed command gets its card, output and exit", () => {
    const updates = replayUpdates(events.slice(0, 10), { terminalOutput: true });
    const call = updates.filter((u) => "toolCallId" in u && u.toolCallId === "c1");
    expect(call.map((u) => Object.keys(u._meta ?? {}))).toEqual([
      ["terminal_info"],
      ["terminal_output"],
      ["terminal_exit"],
    ]);
    expect(updateProblems(updates)).toEqual([]);
  });
});

/**
 * What a transcript shows once the turn is over: chunks of one kind in a row joined, and the
 * states live alone has (a call running, the meter after each step) left out.
 */
function settledView(updates: readonly acp.SessionUpdate[]): unknown[] {
  const view: acp.SessionUpdate[] = [];
  for (const update of updates) {
    if (update.sessionUpdate === "usage_update") continue;
    if (update.sessionUpdate === "tool_call_update" && update.status === "in_progress") continue;
    const last = view.at(-1);
    if (
      (update.sessionUpdate === "agent_message_chunk" ||
        update.sessionUpdate === "agent_thought_chunk") &&
      last?.sessionUpdate === update.sessionUpdate &&
      last.content.type === "text" &&
      update.content.type === "text"
    ) {
      view[view.length - 1] = {
        ...last,
        content: { type: "text", text: last.content.text + update.content.text },
      };
      continue;
    }
    view.push(update);
  }
  return view;
}

describe("replay against the live turn", () => {
  test("a replayed turn shows what the live one showed, after the prompt itself", async () => {
    await using server = await startModelServer();
    await using agent = createTestAgent({ baseUrl: server.url });
    writeFileSync(join(agent.cwd, "notes.txt"), "alpha\nbeta\n");
    server.script(
      toolTurn(
        [
          { id: "c1", name: "read_file", args: { path: "notes.txt" } },
          {
            id: "c2",
            name: "todo_write",
            args: { todos: [{ content: "Read", status: "completed" }] },
          },
          { id: "c3", name: "read_file", args: { path: "missing.txt" } },
        ],
        { reasoning: "first I read the notes" },
      ),
      toolTurn([{ id: "c4", name: "write_file", args: { path: "out.txt", content: "done\n" } }]),
      textTurn("the notes say alpha and beta", { reasoning: "all read" }),
    );
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const live: LiveEvent[] = [];
    const collected = (async () => {
      for await (const event of handle.events()) {
        live.push(event);
        if (event.type === "turn_end") return;
      }
    })();
    const prompt = [{ type: "text" as const, text: "what do my notes say?" }];
    const outcome = await handle.prompt(prompt, new AbortController().signal);
    await collected;
    expect(outcome.reason).toBe("end_turn");

    for (const terminalOutput of [false, true]) {
      const mapper = createUpdateMapper({ terminalOutput });
      const liveUpdates = live.flatMap((event) => mapper.map(event));
      const replayed = replayUpdates(handle.history(), { terminalOutput });
      expect(settledView(replayed)).toEqual([
        { sessionUpdate: "user_message_chunk", content: prompt[0] },
        ...settledView(liveUpdates),
      ]);
    }
  });
});
