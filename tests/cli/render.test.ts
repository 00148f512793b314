import { describe, expect, test } from "bun:test";
import type { LiveEvent } from "../../src/agent/types.ts";
import { type RenderOptions, createLiveRenderer } from "../../src/cli/render.ts";
import { createScreen } from "../../src/cli/screen.ts";
import { createStyle } from "../../src/cli/style.ts";
import type { RenderIntent } from "../../src/render/intent.ts";

function render(
  events: LiveEvent[],
  options: Partial<Omit<RenderOptions, "screen" | "style">> & { color?: boolean } = {},
): { answer: string; activity: string } {
  let answer = "";
  let activity = "";
  const screen = createScreen({
    answer: { write: (text) => void (answer += text) },
    activity: { write: (text) => void (activity += text) },
    answerOnTerminal: false,
    now: () => 0,
  });
  const renderer = createLiveRenderer({
    screen,
    style: createStyle(options.color ?? false),
    showReasoning: options.showReasoning ?? true,
    ...options,
  });
  for (const event of events) renderer.render(event);
  return { answer, activity };
}

const turnId = "t";
const terminal = (output: string, exit = true) => ({
  type: "terminal" as const,
  title: "ls",
  command: "ls",
  cwd: "/p",
  output,
  ...(exit ? { exit: { code: 0, signal: null } } : {}),
});
const call = (callId: string, intent: RenderIntent): LiveEvent => ({
  type: "tool_call",
  turnId,
  callId,
  name: "tool",
  rawInput: {},
  intent,
});

describe("the live renderer", () => {
  test("answer text goes to one stream; reasoning, calls, output previews and results to the other", () => {
    const output = Array.from({ length: 9 }, (_, i) => `line ${i + 1}`).join("\n");
    const { answer, activity } = render([
      { type: "turn_start", turnId, content: [] },
      { type: "reasoning_delta", turnId, text: "let me look" },
      call("c", terminal("", false)),
      {
        type: "tool_result",
        turnId,
        callId: "c",
        isError: false,
        output,
        intent: terminal(output),
      },
      { type: "text_delta", turnId, text: "Nine " },
      { type: "text_delta", turnId, text: "lines." },
      { type: "turn_end", turnId, reason: "end_turn" },
    ]);
    expect({ answer, activity }).toEqual({
      answer: "Nine lines.\n",
      activity: [
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
    });
  });

  test("a running command's output shows as it comes, bounded, with the tail and the hidden count at its end", () => {
    const live = Array.from({ length: 30 }, (_, i) => `out ${i + 1}\n`);
    const { activity } = render([
      call("c", terminal("", false)),
      { type: "tool_start", turnId, callId: "c" },
      ...live.map((chunk): LiveEvent => ({ type: "tool_progress", turnId, callId: "c", chunk })),
      {
        type: "tool_result",
        turnId,
        callId: "c",
        isError: false,
        output: live.join(""),
        intent: terminal(live.join("")),
      },
    ]);
    const lines = activity.split("\n");
    expect(lines.slice(0, 3)).toEqual(["▸ ls", "  │ out 1", "  │ out 2"]);
    expect(lines.slice(20, 29)).toEqual([
      "  │ out 20",
      "  │ … 4 more lines",
      "  │ out 25",
      "  │ out 26",
      "  │ out 27",
      "  │ out 28",
      "  │ out 29",
      "  │ out 30",
      "  ✓ exit 0",
    ]);
  });

  test("a task's steps show under it; tasks side by side say whose each line is", () => {
    const task = (title: string, text?: string): RenderIntent => ({
      type: "generic",
      kind: "think",
      title,
      ...(text === undefined ? {} : { text, summary: "1 step" }),
    });
    const step = (callId: string, chunk: string): LiveEvent => ({
      type: "tool_progress",
      turnId,
      callId,
      chunk,
    });
    const done = (callId: string, title: string): LiveEvent => ({
      type: "tool_result",
      turnId,
      callId,
      isError: false,
      output: "answer",
      intent: task(title, "answer"),
    });
    const alone = render([
      call("a", task("explore: one")),
      step("a", "Read a.ts\n"),
      done("a", "explore: one"),
    ]);
    expect(alone.activity).toBe("▸ explore: one\n  │ Read a.ts\n  ✓ 1 step\n");
    const { activity } = render([
      call("a", task("explore: one")),
      call("b", task("explore: two")),
      step("b", "Glob *.ts (2 files)\n"),
      done("b", "explore: two"),
      step("a", "Read a.ts\n"),
      done("a", "explore: one"),
    ]);
    expect(activity.split("\n")).toEqual([
      "▸ explore: one",
      "▸ explore: two",
      "  │ explore: two › Glob *.ts (2 files)",
      "  ✓ explore: two: 1 step",
      "  │ explore: one › Read a.ts",
      "  ✓ explore: one: 1 step",
      "",
    ]);
  });

  test("a background command's output after its call's result is not printed", () => {
    const { activity } = render([
      call("c", terminal("", false)),
      {
        type: "tool_result",
        turnId,
        callId: "c",
        isError: false,
        output: "id: bg-1",
        intent: terminal("", false),
      },
      { type: "tool_progress", turnId, callId: "c", chunk: "serving\n" },
      { type: "tool_progress", turnId, callId: "c", chunk: "", exit: { code: 0, signal: null } },
    ]);
    expect(activity).not.toContain("serving");
  });

  test("an edit shows its changed lines, coloured when colour is on", () => {
    const intent = {
      type: "diff" as const,
      title: "Edit a.ts",
      path: "/p/a.ts",
      oldText: "one\ntwo\nthree\n",
      newText: "one\n2\nthree\n",
    };
    const events: LiveEvent[] = [
      call("c", intent),
      { type: "tool_result", turnId, callId: "c", isError: false, output: "ok", intent },
    ];
    expect(render(events).activity).toBe("▸ Edit a.ts\n  @@ line 2\n  - two\n  + 2\n  ✓ edited\n");
    const coloured = render(events, { color: true }).activity;
    expect(coloured).toContain("\u001b[31m- two\u001b[39m");
    expect(coloured).toContain("\u001b[32m+ 2\u001b[39m");
  });

  test("a failed tool shows its whole error message, never cut before the fix", () => {
    const fix = `${"x".repeat(200)} install it with: apt-get install bubblewrap`;
    const intent = { type: "generic" as const, title: "Read a.ts", kind: "read" as const };
    const { activity } = render([
      call("c", intent),
      { type: "tool_result", turnId, callId: "c", isError: true, output: fix, intent },
    ]);
    expect(activity).toBe(`▸ Read a.ts\n  ✗ ${fix}\n`);
  });

  test("escape sequences and control characters from the model never reach the streams raw", () => {
    const hostile = "\u001b]52;c;aGVsbG8=\u0007\u001b]0;owned\u0007\u001b[2Jhi\u0007\r\n";
    const { answer, activity } = render([
      { type: "reasoning_delta", turnId, text: "\u001b]0;t" },
      { type: "reasoning_delta", turnId, text: "itle\u0007thinking" },
      call("c", { type: "generic", title: `Read ${hostile}`, kind: "read" }),
      { type: "text_delta", turnId, text: hostile },
      { type: "turn_end", turnId, reason: "end_turn" },
    ]);
    expect(`${answer}${activity}`).not.toContain("\u001b");
    expect(`${answer}${activity}`).not.toContain("\u0007");
    expect(answer).toBe("hi\n");
  });

  test("into a pipe, text before a tool call is commentary on the activity stream; the last step's text is the answer", () => {
    const intent = { type: "generic" as const, title: "Read a.ts", kind: "read" as const };
    const { answer, activity } = render(
      [
        { type: "text_delta", turnId, text: "Let me read it." },
        call("c", intent),
        { type: "tool_result", turnId, callId: "c", isError: false, output: "x", intent },
        { type: "text_delta", turnId, text: "It is short." },
        { type: "turn_end", turnId, reason: "end_turn" },
      ],
      { finalAnswerOnly: true },
    );
    expect({ answer, activity }).toEqual({
      answer: "It is short.\n",
      activity: "Let me read it.\n▸ Read a.ts\n  ✓ done\n",
    });
  });

  test("a notice is one status line on the activity stream", () => {
    const { activity } = render([
      {
        type: "notice",
        turnId,
        severity: "warning",
        title: "rate limited",
        description: "retrying in 4 s",
      },
    ]);
    expect(activity).toBe("! rate limited: retrying in 4 s\n");
  });

  test("as Markdown, finished blocks are rendered as they complete", () => {
    let answer = "";
    const screen = createScreen({
      answer: { write: (text) => void (answer += text) },
      activity: { write: () => {} },
      answerOnTerminal: false,
      now: () => 0,
    });
    const renderer = createLiveRenderer({
      screen,
      style: createStyle(true),
      showReasoning: true,
      markdown: { columns: 80 },
    });
    renderer.render({ type: "turn_start", turnId, content: [] });
    renderer.render({ type: "text_delta", turnId, text: "# Title\n\nsome `code` here" });
    expect(answer).toContain("Title");
    expect(answer).not.toContain("# Title");
    expect(answer).not.toContain("code");
    renderer.render({ type: "turn_end", turnId, reason: "end_turn" });
    expect(answer).toContain("code");
    expect(answer).not.toContain("`code`");
  });
});

test("a command that exits non-zero is marked failed", () => {
  const failed = { ...terminal("boom\n"), exit: { code: 2, signal: null } };
  const { activity } = render([
    call("c", terminal("", false)),
    { type: "tool_result", turnId, callId: "c", isError: false, output: "boom\n", intent: failed },
  ]);
  expect(activity).toBe("▸ ls\n  │ boom\n  ✗ exit 2\n");
});
