/**
 * The ACP answerer on the approval seam, through a real dsh: every answer a client can give
 * (or fail to give) and every way the chain can fail. Each turn asks twice, for a write and
 * for a command outside the sandbox; anything but an explicit allow leaves both undone and the
 * turn ends normally with the refusals handed to the model.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { createApprovalSeam } from "../../src/approval/seam.ts";
import { startAcpHarness, zedInitialize } from "../support/acp-harness.ts";
import type { RecordedRequest } from "../support/model-server.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import {
  type Rig,
  type RigOptions,
  readLog,
  recordingAnswerer,
  startRig,
} from "../permission/rig.ts";

const m = acp.methods.agent.session;

/** A turn whose two tool calls both need approval under workspace-write. */
function scriptAskingTurn(rig: Rig): void {
  rig.model.script(
    toolTurn([
      { id: "w1", name: "write_file", args: { path: ".env", content: "TOKEN=1\n" } },
      {
        id: "b1",
        name: "bash",
        args: { command: "touch escalated", escalate: true, justification: "needs the real home" },
      },
    ]),
    textTurn("done"),
  );
}

function effects(rig: Rig) {
  return {
    wrote: existsSync(join(rig.agent.cwd, ".env")),
    ran: existsSync(join(rig.agent.cwd, "escalated")),
  };
}

/** The tool results the model saw in a request, by call id. */
function toolResults(request: RecordedRequest | undefined): Record<string, string> {
  const messages = request?.body.messages;
  if (!Array.isArray(messages)) return {};
  const results: Record<string, string> = {};
  for (const message of messages) {
    if (message?.role === "tool" && typeof message.tool_call_id === "string") {
      results[message.tool_call_id] = String(message.content);
    }
  }
  return results;
}

function finalStatuses(rig: Rig, sessionId: string): Record<string, unknown> {
  const statuses: Record<string, unknown> = {};
  for (const u of rig.h.updates(sessionId)) {
    if (u.sessionUpdate === "tool_call_update" && u.status != null)
      statuses[u.toolCallId] = u.status;
  }
  return statuses;
}

/** Runs the asking turn under `options` and checks both actions were refused cleanly. */
async function expectRefused(options: RigOptions, expectedAsks: number) {
  await using rig = await startRig(options);
  const { sessionId } = await rig.newSession();
  scriptAskingTurn(rig);
  expect(await rig.prompt(sessionId, "write and run")).toEqual({ stopReason: "end_turn" });
  expect(effects(rig)).toEqual({ wrote: false, ran: false });
  expect(rig.h.permissions.map((p) => p.toolCall.toolCallId)).toEqual(
    ["w1", "b1"].slice(0, expectedAsks),
  );
  expect(finalStatuses(rig, sessionId)).toEqual({ w1: "failed", b1: "failed" });
  const results = toolResults(rig.model.requests[1]);
  expect(results.w1).toContain("nothing was written");
  expect(results.b1).toContain("not run");
  const log = rig.logLines(sessionId);
  expect(log.at(-1)).toMatchObject({ type: "turn_end", reason: "end_turn" });
  expect(rig.model.failures).toEqual([]);
  expect(rig.h.problems).toEqual([]);
  return rig;
}

describe("the client's answer", () => {
  test("allow_once runs the command and performs the write", async () => {
    await using rig = await startRig({
      onPermission: (params) => {
        const allow = params.options.find((o) => o.kind === "allow_once");
        return { outcome: { outcome: "selected", optionId: allow?.optionId ?? "" } };
      },
    });
    const { sessionId } = await rig.newSession();
    scriptAskingTurn(rig);
    expect(await rig.prompt(sessionId, "write and run")).toEqual({ stopReason: "end_turn" });
    expect(effects(rig)).toEqual({ wrote: true, ran: true });
    const [write, run] = rig.h.permissions;
    expect(write?.toolCall).toMatchObject({ toolCallId: "w1", title: "Write .env", kind: "edit" });
    expect(JSON.stringify(write?.toolCall.content)).toContain(
      `Write ${join(rig.agent.cwd, ".env")}: `,
    );
    expect(
      write?.toolCall.content?.some((c) => c.type === "diff" && c.newText === "TOKEN=1\n"),
    ).toBe(true);
    expect(run?.toolCall).toMatchObject({
      toolCallId: "b1",
      kind: "execute",
      rawInput: {
        command: "touch escalated",
        escalate: true,
        justification: "needs the real home",
      },
    });
    expect(JSON.stringify(run?.toolCall.content)).toContain("$ touch escalated");
    expect(run?.options).toEqual([
      { optionId: "allow", name: "Allow once", kind: "allow_once" },
      {
        optionId: "allow_always",
        name: `Always allow \`touch escalated\` outside the sandbox in ${rig.agent.cwd}`,
        kind: "allow_always",
      },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ]);
    expect(finalStatuses(rig, sessionId)).toEqual({ w1: "completed", b1: "completed" });
    expect(rig.h.problems).toEqual([]);
  });

  const denials: [string, NonNullable<RigOptions["onPermission"]>][] = [
    ["reject", () => ({ outcome: { outcome: "selected", optionId: "reject" } })],
    [
      "an unknown option id",
      () => ({ outcome: { outcome: "selected", optionId: "allow_sometimes" } }),
    ],
    [
      "an error response",
      () => {
        throw acp.RequestError.internalError({ details: "the client broke" });
      },
    ],
  ];
  for (const [name, onPermission] of denials) {
    test(`${name} denies: nothing written, nothing run, the turn ends normally`, async () => {
      await expectRefused({ onPermission }, 2);
    });
  }

  test("a cancelled outcome (the user stopped the turn): nothing written, no further question, the turn ends cancelled", async () => {
    await using rig = await startRig({
      onPermission: () => ({ outcome: { outcome: "cancelled" } }),
    });
    const { sessionId } = await rig.newSession();
    scriptAskingTurn(rig);
    expect(await rig.prompt(sessionId, "write and run")).toEqual({ stopReason: "cancelled" });
    expect(effects(rig)).toEqual({ wrote: false, ran: false });
    expect(rig.h.permissions.map((p) => p.toolCall.toolCallId)).toEqual(["w1"]);
    expect(rig.model.requests.length).toBe(1);
    expect(rig.logLines(sessionId).at(-1)).toMatchObject({ type: "turn_end", reason: "cancelled" });
    expect(rig.h.problems).toEqual([]);
  });

  test("a client that vanishes while asked: nothing written, nothing run, the turn ends cancelled", async () => {
    const asked = Promise.withResolvers<void>();
    await using rig = await startRig({
      onPermission: () => {
        asked.resolve();
        return new Promise<acp.RequestPermissionResponse>(() => {});
      },
    });
    const { sessionId } = await rig.newSession();
    scriptAskingTurn(rig);
    const prompt = rig.prompt(sessionId, "write and run");
    prompt.catch(() => undefined);
    await asked.promise;
    await rig.h.disconnect();
    expect(effects(rig)).toEqual({ wrote: false, ran: false });
    const log = readLog(rig.agent.home, sessionId);
    expect(log.at(-1)).toMatchObject({ type: "turn_end", reason: "cancelled" });
    expect(log.filter((e) => e.type === "tool_result").map((e) => e.callId)).toEqual(["w1"]);
    expect(rig.model.requests).toHaveLength(1);
  });
});

describe("the answerer chain", () => {
  test("a session not on this connection is passed to the next answerer; the client is never asked", async () => {
    const next = recordingAnswerer("deny");
    await using rig = await startRig({ after: [next.answerer] });
    await using foreign = await rig.agent.composition.service.create({ cwd: rig.agent.cwd });
    scriptAskingTurn(rig);
    const outcome = await foreign.prompt(
      [{ type: "text", text: "write and run" }],
      new AbortController().signal,
    );
    expect(outcome.reason).toBe("end_turn");
    expect(next.requests.map((r) => [r.sessionId, r.toolCallId, r.kind])).toEqual([
      [foreign.sessionId, "w1", "write"],
      [foreign.sessionId, "b1", "escalate"],
    ]);
    expect(rig.h.permissions).toEqual([]);
    expect(effects(rig)).toEqual({ wrote: false, ran: false });
  });

  test("a request without a tool call id is passed on, even for a live session", async () => {
    const next = recordingAnswerer("allow");
    await using rig = await startRig();
    const { sessionId } = await rig.newSession();
    const seam = createApprovalSeam({ answerers: [rig.approvals, next.answerer] });
    const request = {
      sessionId,
      kind: "write" as const,
      title: "Write /tmp/x",
      reason: "outside",
      intent: { type: "generic" as const, title: "Write /tmp/x", kind: "edit" as const },
    };
    expect(await rig.approvals.answer(request, new AbortController().signal)).toBe("pass");
    expect(await seam.request(request, new AbortController().signal)).toBe("allow");
    expect(next.requests).toEqual([request]);
    expect(rig.h.permissions).toEqual([]);
  });

  test("no answerer at all denies without asking anyone", async () => {
    await expectRefused({ withoutAcp: true }, 0);
  });

  test("an answerer that throws denies, and later answerers are not asked", async () => {
    const broken = recordingAnswerer("throw");
    const after = recordingAnswerer("allow");
    await expectRefused({ withoutAcp: true, after: [broken.answerer, after.answerer] }, 0);
    expect(broken.requests.map((r) => r.toolCallId)).toEqual(["w1", "b1"]);
    expect(after.requests).toEqual([]);
  });
});

describe("routing", () => {
  test("with several sessions live, a permission request reaches only the owning session", async () => {
    await using rig = await startRig();
    const [a, b, c] = [await rig.newSession(), await rig.newSession(), await rig.newSession()];
    const release = Promise.withResolvers<void>();
    const held = {
      respond: {
        stream: [
          { text: "busy" },
          { until: release.promise },
          { finish: "stop" as const },
          { done: true as const },
        ],
      },
    };
    // A and C are mid-turn while B asks.
    rig.model.script(held);
    const promptA = rig.prompt(a.sessionId, "wait");
    await rig.model.received(0);
    rig.model.script(held);
    const promptC = rig.prompt(c.sessionId, "wait");
    await rig.model.received(1);
    scriptAskingTurn(rig);
    expect(await rig.prompt(b.sessionId, "write and run")).toEqual({ stopReason: "end_turn" });
    release.resolve();
    expect(await Promise.all([promptA, promptC])).toEqual([
      { stopReason: "end_turn" },
      { stopReason: "end_turn" },
    ]);

    const asked = rig.h.sent.filter((msg) => msg.method === "session/request_permission");
    expect(
      asked
        .map((msg) => JSON.stringify(msg.params))
        .every((p) => p.includes(`"sessionId":"${b.sessionId}"`)),
    ).toBe(true);
    expect(rig.h.permissions.map((p) => [p.sessionId, p.toolCall.toolCallId])).toEqual([
      [b.sessionId, "w1"],
      [b.sessionId, "b1"],
    ]);
    for (const other of [a, c]) {
      expect(rig.h.updates(other.sessionId).some((u) => u.sessionUpdate === "tool_call")).toBe(
        false,
      );
    }
    expect(rig.h.problems).toEqual([]);
  });

  test("a second connection over the same agent never sees the first one's requests", async () => {
    await using rig = await startRig();
    await using other = startAcpHarness({
      service: rig.agent.composition.service,
      models: rig.agent.composition.models,
      approvals: rig.approvals,
      onPermission: () => ({ outcome: { outcome: "selected", optionId: "allow" } }),
    });
    await other.agent.request(acp.methods.agent.initialize, zedInitialize(false));
    const elsewhere = await other.agent.request(m.new, { cwd: rig.agent.cwd, mcpServers: [] });
    const { sessionId } = await rig.newSession();
    scriptAskingTurn(rig);
    expect(await rig.prompt(sessionId, "write and run")).toEqual({ stopReason: "end_turn" });
    expect(rig.h.permissions.map((p) => p.sessionId)).toEqual([sessionId, sessionId]);
    expect(other.permissions).toEqual([]);
    const seen = other.updates(elsewhere.sessionId);
    expect(seen.filter((u) => u.sessionUpdate !== "available_commands_update")).toEqual([]);
    // The other connection's client would have allowed: nothing happened, so it was never asked.
    expect(effects(rig)).toEqual({ wrote: false, ran: false });
  });
});
