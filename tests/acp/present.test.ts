import { describe, expect, test } from "bun:test";
import { clip, fence, presentCall, presentResult, terminalText } from "../../src/acp/present.ts";
import type { RenderIntent, TerminalIntent } from "../../src/render/intent.ts";
import { updateProblems } from "../support/acp-schema.ts";

const cards = { terminalOutput: true };
const plain = { terminalOutput: false };

const command: TerminalIntent = {
  type: "terminal",
  title: "Run `ls`",
  command: "ls",
  cwd: "/p",
  output: "",
};
const ran: TerminalIntent = { ...command, output: "a\nb\n", exit: { code: 0, signal: null } };
const diff: RenderIntent = {
  type: "diff",
  title: "Edit a.ts",
  path: "/p/a.ts",
  oldText: "x",
  newText: "y",
  locations: [{ path: "/p/a.ts", line: 3 }],
};
const read: RenderIntent = {
  type: "generic",
  title: "Read a.ts",
  kind: "read",
  locations: [{ path: "/p/a.ts" }],
};

describe("presentCall", () => {
  test("a terminal call with terminal cards announces a display terminal", () => {
    const update = presentCall(
      { callId: "c1", name: "bash", rawInput: { command: "ls" }, intent: command },
      cards,
    );
    expect(update).toEqual({
      sessionUpdate: "tool_call",
      toolCallId: "c1",
      title: "Run `ls`",
      name: "bash",
      kind: "execute",
      status: "pending",
      rawInput: { command: "ls" },
      content: [{ type: "terminal", terminalId: "c1" }],
      locations: [],
      _meta: { terminal_info: { terminal_id: "c1", cwd: "/p" } },
    });
    expect(updateProblems([update])).toEqual([]);
  });

  test("a terminal call without terminal cards shows the command as text, no _meta", () => {
    const update = presentCall(
      { callId: "c1", name: "bash", rawInput: {}, intent: command },
      plain,
    );
    expect(update).toMatchObject({
      kind: "execute",
      content: [{ type: "content", content: { type: "text", text: "```sh\n$ ls\n```" } }],
    });
    expect("_meta" in update).toBe(false);
  });

  test("a diff call is an edit with diff content and a 0-based location for Zed", () => {
    const update = presentCall(
      { callId: "c2", name: "edit_file", rawInput: {}, intent: diff },
      cards,
    );
    expect(update).toMatchObject({
      kind: "edit",
      content: [{ type: "diff", path: "/p/a.ts", oldText: "x", newText: "y" }],
      locations: [{ path: "/p/a.ts", line: 2 }],
    });
    expect(updateProblems([update])).toEqual([]);
  });

  test("a generic call carries its kind and locations, and no content without text", () => {
    const update = presentCall(
      { callId: "c3", name: "read_file", rawInput: {}, intent: read },
      plain,
    );
    expect(update).toMatchObject({ kind: "read", content: [], locations: [{ path: "/p/a.ts" }] });
  });
});

describe("presentResult", () => {
  test("with terminal cards: unstreamed output, then the exit in its own update", () => {
    const updates = presentResult(
      {
        callId: "c1",
        callIntent: command,
        isError: false,
        output: "a\nb\n",
        intent: ran,
        streamed: false,
      },
      cards,
    );
    expect(updates).toEqual([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "c1",
        _meta: { terminal_output: { terminal_id: "c1", data: "a\r\nb\r\n" } },
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "c1",
        status: "completed",
        title: "Run `ls`",
        kind: "execute",
        content: [{ type: "terminal", terminalId: "c1" }],
        locations: [],
        _meta: { terminal_exit: { terminal_id: "c1", exit_code: 0, signal: null } },
      },
    ]);
    expect(updateProblems(updates)).toEqual([]);
  });

  test("with terminal cards and streamed output, only the exit is sent; a signal has no exit code", () => {
    const killed: TerminalIntent = {
      ...command,
      output: "x",
      exit: { code: -1, signal: "SIGKILL" },
    };
    const updates = presentResult(
      {
        callId: "c1",
        callIntent: command,
        isError: true,
        output: "x",
        intent: killed,
        streamed: true,
      },
      cards,
    );
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({
      status: "failed",
      _meta: { terminal_exit: { terminal_id: "c1", exit_code: null, signal: "SIGKILL" } },
    });
  });

  test("without terminal cards: one update with the output fenced and the exit code", () => {
    const updates = presentResult(
      {
        callId: "c1",
        callIntent: command,
        isError: false,
        output: "a\nb\n",
        intent: ran,
        streamed: false,
      },
      plain,
    );
    expect(updates).toEqual([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "c1",
        status: "completed",
        title: "Run `ls`",
        kind: "execute",
        content: [
          {
            type: "content",
            content: { type: "text", text: "```sh\n$ ls\na\nb\n```\n\nexit code 0" },
          },
        ],
        locations: [],
      },
    ]);
  });

  test("a failed call whose intent has no text shows the error output", () => {
    const updates = presentResult(
      {
        callId: "c3",
        callIntent: read,
        isError: true,
        output: "no such file",
        intent: read,
        streamed: false,
      },
      plain,
    );
    expect(updates[0]).toMatchObject({
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "no such file" } }],
    });
  });

  test("a call that never got a result fails; its terminal card still gets an exit", () => {
    const updates = presentResult(
      { callId: "c1", callIntent: command, isError: true, output: "", streamed: false },
      cards,
    );
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({
      status: "failed",
      _meta: { terminal_exit: { terminal_id: "c1", exit_code: null, signal: null } },
    });
  });
});

describe("text helpers", () => {
  test("a fence is longer than any backtick run in the body", () => {
    expect(fence("sh", "a ``` b")).toBe("````sh\na ``` b\n````");
  });

  test("clip keeps the tail and says how much it dropped", () => {
    expect(clip("abcdef", 2)).toBe("… (4 characters omitted)\nef");
  });

  test("terminalText names a killing signal", () => {
    expect(terminalText({ ...command, exit: { code: null, signal: "SIGTERM" } })).toBe(
      "```sh\n$ ls\n```\n\nkilled by SIGTERM",
    );
  });
});
