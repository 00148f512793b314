/**
 * `session/new` is answered once the session's log is made; its handle opens after the
 * answer. These cases hold the real service's handle until the client has sent what it sends
 * next: `session/list` (which the SDK dispatches after the requests before it) opens the gate,
 * so every request before it reached the bridge while the handle was still opening.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import type { AgentService } from "../../src/agent/types.ts";
import { createAcpApprovalAnswerer } from "../../src/acp/approval.ts";
import { rejection } from "../support/acp-fixture.ts";
import { type AcpHarness, startAcpHarness, zedInitialize } from "../support/acp-harness.ts";
import { type TestAgent, createTestAgent } from "../support/agent.ts";
import { type ModelServer, startModelServer, textTurn } from "../support/model-server.ts";

const m = acp.methods.agent.session;

/**
 * The real service, whose new sessions' handles are held until `session/list` is asked; with
 * `fail`, a held handle then fails as a composition that cannot be made would.
 */
function heldService(real: AgentService, fail?: string): AgentService {
  const held: (() => void)[] = [];
  return {
    ...real,
    async start(options) {
      const started = await real.start(options);
      const gate = Promise.withResolvers<void>();
      held.push(gate.resolve);
      const handle = started.handle.then(async (opened) => {
        await gate.promise;
        if (fail === undefined) return opened;
        await opened[Symbol.asyncDispose]();
        throw new Error(fail);
      });
      // The bridge takes the handle over; this copy must not report a rejection of its own.
      handle.catch(() => undefined);
      return { ...started, handle };
    },
    list() {
      for (const release of held.splice(0)) release();
      return real.list();
    },
  };
}

interface Rig extends AsyncDisposable {
  readonly model: ModelServer;
  readonly agent: TestAgent;
  readonly h: AcpHarness;
  newSession(): Promise<string>;
  /** Asks `session/list`, which lets every held handle open (or fail). */
  release(): Promise<unknown>;
  prompt(sessionId: string, text: string): Promise<acp.PromptResponse>;
  load(sessionId: string): Promise<acp.LoadSessionResponse>;
}

async function startRig(fail?: string): Promise<Rig> {
  const model = await startModelServer();
  const approvals = createAcpApprovalAnswerer();
  const agent = createTestAgent({ baseUrl: model.url, answerers: [approvals] });
  const h = startAcpHarness({
    service: heldService(agent.composition.service, fail),
    models: agent.composition.models,
    approvals,
  });
  await h.agent.request(acp.methods.agent.initialize, zedInitialize(true));
  return {
    model,
    agent,
    h,
    newSession: async () =>
      (await h.agent.request(m.new, { cwd: agent.cwd, mcpServers: [] })).sessionId,
    release: () => h.agent.request(m.list, {}),
    prompt: (sessionId, text) =>
      h.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text }] }),
    load: (sessionId) => h.agent.request(m.load, { sessionId, cwd: agent.cwd, mcpServers: [] }),
    async [Symbol.asyncDispose]() {
      await h.disconnect();
      await agent[Symbol.asyncDispose]();
      await model[Symbol.asyncDispose]();
    },
  };
}

function logOf(agent: TestAgent, sessionId: string): string {
  return readFileSync(join(agent.home, "sessions", `${sessionId}.jsonl`), "utf8");
}

describe("a session whose handle is still opening", () => {
  test("has its log before the answer, and a prompt and a config change sent at once are answered in order", async () => {
    await using r = await startRig();
    const sessionId = await r.newSession();
    // Made before the answer: the session is never lost, whatever happens next.
    expect(logOf(r.agent, sessionId)).toContain(`"id":"${sessionId}"`);
    r.model.script(textTurn("answered"));
    const changed = r.h.agent.request(m.setConfigOption, {
      sessionId,
      configId: "effort",
      value: "high",
    });
    const prompted = r.prompt(sessionId, "hello");
    await r.release();
    const options = (await changed).configOptions;
    expect(options.find((option) => option.id === "effort")?.currentValue).toBe("high");
    expect(await prompted).toEqual({ stopReason: "end_turn" });
    expect(r.model.requests).toHaveLength(1);
    const text = r.h
      .updates(sessionId)
      .flatMap((u) =>
        u.sessionUpdate === "agent_message_chunk" && u.content.type === "text"
          ? [u.content.text]
          : [],
      )
      .join("");
    expect(text).toBe("answered");
    // The command list still comes, after the session opened.
    await r.h.waitForUpdate(sessionId, (u) => u.sessionUpdate === "available_commands_update");
    expect(r.h.problems).toEqual([]);
  });

  test("a cancel while it opens ends the waiting prompt cancelled, before any model request", async () => {
    await using r = await startRig();
    const sessionId = await r.newSession();
    const prompted = r.prompt(sessionId, "never asked");
    await r.h.agent.notify(m.cancel, { sessionId });
    await r.release();
    expect(await prompted).toEqual({ stopReason: "cancelled" });
    expect(r.model.requests).toHaveLength(0);
    // The prompt is still part of the session.
    expect(logOf(r.agent, sessionId)).toContain("never asked");
    expect(r.h.problems).toEqual([]);
  });

  test("a close while it opens closes the session once open, and it loads again", async () => {
    await using r = await startRig();
    const sessionId = await r.newSession();
    const closed = r.h.agent.request(m.close, { sessionId });
    await r.release();
    expect(await closed).toEqual({});
    const gone = await rejection(r.prompt(sessionId, "late"));
    expect(gone.code).toBe(-32002);
    expect((await r.load(sessionId)).configOptions?.length).toBeGreaterThan(0);
    expect(r.h.problems).toEqual([]);
  });
});

describe("a session that cannot open", () => {
  test("answers each later request with an error saying why, closes, and stdout stays JSON-RPC", async () => {
    await using r = await startRig("the model endpoint's configuration was refused");
    const sessionId = await r.newSession();
    const prompted = rejection(r.prompt(sessionId, "hello"));
    const changed = rejection(
      r.h.agent.request(m.setConfigOption, { sessionId, configId: "effort", value: "high" }),
    );
    await r.release();
    for (const error of [await prompted, await changed]) {
      expect(error.code).toBe(-32603);
      expect(error.message).toBe(
        `Internal error: session ${sessionId} could not open: the model endpoint's configuration was refused`,
      );
    }
    // Asked again later, the same answer, never a hang.
    const again = await rejection(r.prompt(sessionId, "again"));
    expect(again.message).toContain("could not open");
    expect(r.model.requests).toHaveLength(0);
    expect(await r.h.agent.request(m.close, { sessionId })).toEqual({});
    expect((await rejection(r.prompt(sessionId, "closed"))).code).toBe(-32002);
    // Its log was closed and its lock released: the session loads again.
    expect((await r.load(sessionId)).configOptions?.length).toBeGreaterThan(0);
    expect(r.h.problems).toEqual([]);
  });
});
