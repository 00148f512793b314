import { expect, test } from "bun:test";
import type { LiveEvent } from "../../src/agent/types.ts";
import { createLiveRenderer } from "../../src/cli/render.ts";
import type { PlanIntent } from "../../src/tools/intent.ts";

function render(events: LiveEvent[]): { answer: string; activity: string } {
  let answer = "";
  let activity = "";
  const renderer = createLiveRenderer({
    answer: { write: (text) => void (answer += text) },
    activity: { write: (text) => void (activity += text) },
    color: false,
  });
  for (const event of events) renderer.render(event);
  return { answer, activity };
}

const turnId = "t";

test("answer text goes to one stream; reasoning, calls, output previews and results to the other", () => {
  const output = Array.from({ length: 9 }, (_, i) => `line ${i + 1}`).join("\n");
  const { answer, activity } = render([
    { type: "turn_start", turnId, content: [] },
    { type: "reasoning_delta", turnId, text: "let me look" },
    {
      type: "tool_call",
      turnId,
      callId: "c",
      name: "bash",
      rawInput: {},
      intent: { type: "terminal", title: "ls", command: "ls", cwd: "/p", output: "" },
    },
    {
      type: "tool_result",
      turnId,
      callId: "c",
      isError: false,
      output,
      intent: {
        type: "terminal",
        title: "ls",
        command: "ls",
        cwd: "/p",
        output,
        exit: { code: 0, signal: null },
      },
    },
    { type: "text_delta", turnId, text: "Nine " },
    { type: "text_delta", turnId, text: "lines." },
    { type: "turn_end", turnId, reason: "end_turn" },
  ]);
  expect(answer).toBe("Nine lines.\n");
  expect(activity).toBe(
    [
      "let me look",
      "▸ ls",
      "  │ … 3 more lines",
      "  │ line 4",
      "  │ line 5",
      "  │ line 6",
      "  │ line 7",
      "  │ line 8",
      "  │ line 9",
      "  ✓ exit 0",
      "",
    ].join("\n"),
  );
});

test("a failed tool shows its first error line", () => {
  const { activity } = render([
    {
      type: "tool_call",
      turnId,
      callId: "c",
      name: "read_file",
      rawInput: {},
      intent: { type: "generic", title: "Read a.ts", kind: "read" },
    },
    {
      type: "tool_result",
      turnId,
      callId: "c",
      isError: true,
      output: "file not found: a.ts\nmore",
      intent: { type: "generic", title: "Read a.ts", kind: "read" },
    },
  ]);
  expect(activity).toBe("▸ Read a.ts\n  ✗ file not found: a.ts\n");
});

test("a plan prints as a checklist when it changes, and a repeat of the same plan prints nothing", () => {
  const plan = (status: "pending" | "completed"): PlanIntent => ({
    type: "plan",
    title: "Plan",
    entries: [
      { content: "Read", status: "completed", priority: "medium" },
      { content: "Fix", status, priority: "high" },
    ],
  });
  const call = (callId: string, intent: PlanIntent): LiveEvent[] => [
    { type: "tool_call", turnId, callId, name: "todo_write", rawInput: {}, intent },
    { type: "tool_result", turnId, callId, isError: false, output: "plan updated", intent },
  ];
  const { activity } = render([
    ...call("a", plan("pending")),
    ...call("b", plan("pending")),
    ...call("c", plan("completed")),
  ]);
  expect(activity).toBe("Plan:\n  [x] Read\n  [ ] Fix\nPlan:\n  [x] Read\n  [x] Fix\n");
});
