import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { startAcpFixture } from "../support/acp-fixture.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import { sandboxSerialTest as sandboxed } from "../support/sandbox-gate.ts";

const m = acp.methods.agent.session;

type ToolUpdate = Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }>;

function toolUpdates(updates: readonly acp.SessionUpdate[], callId: string): ToolUpdate[] {
  return updates.filter(
    (u): u is ToolUpdate =>
      (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") &&
      u.toolCallId === callId,
  );
}

function metaKeys(updates: readonly ToolUpdate[]): string[][] {
  return updates.map((u) => Object.keys(u._meta ?? {}));
}

describe("tool calls as the client sees them", () => {
  for (const terminalOutput of [true, false]) {
    sandboxed(`a command ${terminalOutput ? "with terminal cards" : "as text"}`, async () => {
      await using f = await startAcpFixture({ terminalOutput });
      const { sessionId } = await f.newSession();
      f.model.script(
        toolTurn([{ id: "call_1", name: "bash", args: { command: "printf 'one\\ntwo\\n'" } }]),
        textTurn("done"),
      );
      expect(await f.prompt(sessionId, "run it")).toEqual({ stopReason: "end_turn" });
      const calls = toolUpdates(f.h.updates(sessionId), "call_1");
      expect(calls[0]).toMatchObject({
        sessionUpdate: "tool_call",
        kind: "execute",
        status: "pending",
        rawInput: { command: "printf 'one\\ntwo\\n'" },
      });
      expect(calls[1]).toEqual({
        sessionUpdate: "tool_call_update",
        toolCallId: "call_1",
        status: "in_progress",
      });
      const last = calls.at(-1);
      expect(last).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed" });
      if (terminalOutput) {
        expect(calls[0]).toMatchObject({
          content: [{ type: "terminal", terminalId: "call_1" }],
          _meta: { terminal_info: { terminal_id: "call_1", cwd: f.agent.cwd } },
        });
        // Output (streamed or at the end), then the exit alone in the last update.
        const keys = metaKeys(calls);
        expect(keys[0]).toEqual(["terminal_info"]);
        expect(keys.slice(2, -1).every((k) => k.length === 1 && k[0] === "terminal_output")).toBe(
          true,
        );
        expect(keys.at(-1)).toEqual(["terminal_exit"]);
        const data = calls.map((u) => {
          const out = u._meta?.terminal_output;
          return typeof out === "object" && out !== null && "data" in out ? String(out.data) : "";
        });
        expect(data.join("")).toBe("one\r\ntwo\r\n");
        expect(last?._meta).toEqual({
          terminal_exit: { terminal_id: "call_1", exit_code: 0, signal: null },
        });
      } else {
        expect(calls.every((u) => u._meta == null)).toBe(true);
        expect(last?.content).toEqual([
          {
            type: "content",
            content: {
              type: "text",
              text: "```sh\n$ printf 'one\\ntwo\\n'\none\ntwo\n```\n\nexit code 0",
            },
          },
        ]);
      }
      expect(f.h.problems).toEqual([]);
    });
  }

  test("a file write shows a diff with an absolute path and a location", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    f.model.script(
      toolTurn([{ id: "w1", name: "write_file", args: { path: "notes.txt", content: "hello\n" } }]),
      textTurn("written"),
    );
    expect(await f.prompt(sessionId, "write")).toEqual({ stopReason: "end_turn" });
    const path = join(f.agent.cwd, "notes.txt");
    const calls = toolUpdates(f.h.updates(sessionId), "w1");
    // Announced with the file only; the exact diff comes with the result.
    expect(calls[0]).toMatchObject({
      kind: "edit",
      title: "Write notes.txt",
      content: [],
      locations: [{ path }],
    });
    expect(calls.at(-1)).toMatchObject({
      status: "completed",
      content: [{ type: "diff", path, newText: "hello\n" }],
    });
    expect(readFileSync(path, "utf8")).toBe("hello\n");
    expect(f.h.problems).toEqual([]);
  });

  test("a read is a generic call; a failing one ends failed with the error shown", async () => {
    await using f = await startAcpFixture({ terminalOutput: false });
    const { sessionId } = await f.newSession();
    writeFileSync(join(f.agent.cwd, "a.txt"), "alpha\n");
    f.model.script(
      toolTurn([
        { id: "r1", name: "read_file", args: { path: "a.txt" } },
        { id: "r2", name: "read_file", args: { path: "missing.txt" } },
      ]),
      textTurn("read"),
    );
    expect(await f.prompt(sessionId, "read")).toEqual({ stopReason: "end_turn" });
    const updates = f.h.updates(sessionId);
    expect(toolUpdates(updates, "r1").map((u) => [u.kind, u.status])).toEqual([
      ["read", "pending"],
      [undefined, "in_progress"],
      ["read", "completed"],
    ]);
    const failed = toolUpdates(updates, "r2").at(-1);
    expect(failed?.status).toBe("failed");
    expect(failed?.content?.length).toBeGreaterThan(0);
    expect(f.h.problems).toEqual([]);
  });

  test("an unknown tool gets the generic fallback and fails", async () => {
    await using f = await startAcpFixture();
    const { sessionId } = await f.newSession();
    f.model.script(toolTurn([{ id: "u1", name: "no_such_tool", args: {} }]), textTurn("ok"));
    expect(await f.prompt(sessionId, "go")).toEqual({ stopReason: "end_turn" });
    const calls = toolUpdates(f.h.updates(sessionId), "u1");
    expect(calls.map((u) => u.status)).toEqual(["pending", "in_progress", "failed"]);
    expect(f.h.problems).toEqual([]);
  });
});

describe("permission requests", () => {
  for (const [answer, written] of [
    ["allow", true],
    ["reject", false],
  ] as const) {
    test(`a write that needs approval asks the client; ${answer} ${written ? "writes" : "does not write"}`, async () => {
      await using f = await startAcpFixture({
        onPermission: () => ({ outcome: { outcome: "selected", optionId: answer } }),
      });
      const { sessionId } = await f.newSession();
      f.model.script(
        toolTurn([{ id: "e1", name: "write_file", args: { path: ".env", content: "KEY=1\n" } }]),
        textTurn("ok"),
      );
      expect(await f.prompt(sessionId, "write env")).toEqual({ stopReason: "end_turn" });
      const path = join(f.agent.cwd, ".env");
      expect(f.h.permissions).toEqual([
        {
          sessionId,
          toolCall: {
            toolCallId: "e1",
            title: "Write .env",
            kind: "edit",
            content: [
              {
                type: "content",
                content: { type: "text", text: expect.stringContaining(`Write ${path}: `) },
              },
              { type: "diff", path, oldText: null, newText: "KEY=1\n" },
            ],
          },
          options: [
            { optionId: "allow", name: "Allow once", kind: "allow_once" },
            { optionId: "reject", name: "Reject", kind: "reject_once" },
          ],
        },
      ]);
      // The call was on the client, and marked running, before the request patched it: a status
      // written after the request would replace Zed's "waiting for confirmation" and cancel it.
      const wire = f.h.sent.map((msg) => msg.method ?? "");
      const announced = f.h.sent.findIndex(
        (msg) =>
          msg.method === "session/update" && JSON.stringify(msg.params).includes('"tool_call"'),
      );
      const running = f.h.sent.findIndex((msg) =>
        JSON.stringify(msg.params ?? "").includes('"status":"in_progress"'),
      );
      const asked = wire.indexOf("session/request_permission");
      expect([announced < running, running < asked]).toEqual([true, true]);
      expect(
        f.h.sent
          .slice(asked + 1)
          .some((msg) => JSON.stringify(msg.params ?? "").includes('"status":"in_progress"')),
      ).toBe(false);
      expect(existsSync(path)).toBe(written);
      expect(toolUpdates(f.h.updates(sessionId), "e1").at(-1)?.status).toBe(
        written ? "completed" : "failed",
      );
      expect(f.h.problems).toEqual([]);
    });
  }

  test("cancelling the turn while the client is asked denies and ends cancelled", async () => {
    const asked = Promise.withResolvers<void>();
    await using f = await startAcpFixture({
      onPermission: (_params, signal) => {
        asked.resolve();
        const { promise, resolve } = Promise.withResolvers<acp.RequestPermissionResponse>();
        signal.addEventListener("abort", () => resolve({ outcome: { outcome: "cancelled" } }), {
          once: true,
        });
        return promise;
      },
    });
    const { sessionId } = await f.newSession();
    f.model.script(
      toolTurn([{ id: "e1", name: "write_file", args: { path: ".env", content: "x" } }]),
    );
    const prompt = f.prompt(sessionId, "write env");
    await asked.promise;
    await f.h.agent.notify(m.cancel, { sessionId });
    expect(await prompt).toEqual({ stopReason: "cancelled" });
    expect(existsSync(join(f.agent.cwd, ".env"))).toBe(false);
    expect(toolUpdates(f.h.updates(sessionId), "e1").at(-1)?.status).toBe("failed");
    expect(f.h.problems).toEqual([]);
  });
});

describe("cancel during a tool", () => {
  sandboxed(
    "kills the running command; the call ends failed before the cancelled response",
    async () => {
      await using f = await startAcpFixture();
      const { sessionId } = await f.newSession();
      f.model.script(
        toolTurn([{ id: "s1", name: "bash", args: { command: "echo started; sleep 30" } }]),
      );
      const prompt = f.prompt(sessionId, "sleep");
      await f.h.waitForUpdate(
        sessionId,
        (u) => u.sessionUpdate === "tool_call_update" && u._meta?.terminal_output !== undefined,
      );
      const started = performance.now();
      await f.h.agent.notify(m.cancel, { sessionId });
      expect(await prompt).toEqual({ stopReason: "cancelled" });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(toolUpdates(f.h.updates(sessionId), "s1").at(-1)).toMatchObject({
        status: "failed",
        _meta: { terminal_exit: { terminal_id: "s1" } },
      });
      expect(f.model.requests).toHaveLength(1);
      expect(f.h.problems).toEqual([]);
    },
  );
});
