/**
 * Compaction and cost over ACP, through the compiled binary: `compaction_update` only for a
 * client that advertises `session.compaction`, an agent message otherwise; `usage_update.cost`
 * is the prices times the reported tokens, cumulative over prompts and across a restart.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { zedInitialize } from "../support/acp-harness.ts";
import { type AcpProcess, spawnAcp } from "../support/acp-process.ts";
import { ensureBinary } from "../support/binary.ts";
import { type ScriptedTurn, startModelServer } from "../support/model-server.ts";

const m = acp.methods.agent.session;

beforeAll(async () => {
  await ensureBinary();
});

/** Flat prices (no peak hours), so the expected cost does not depend on the clock. */
const CONFIG = `
compact_at = 0.8
[[models]]
id = "deepseek-flash"
context_window = 10000
prices = { cache_hit = 1, cache_miss = 2, output = 4 }
`;

function answer(
  text: string,
  usage: { prompt: number; completion: number; cacheHit?: number },
): ScriptedTurn {
  return { respond: { stream: [{ text }, { finish: "stop" }, { usage }, { done: true }] } };
}

/** USD at the config's prices: hits × 1, misses × 2, output × 4 per 1M tokens. */
const cost = (prompt: number, completion: number, hit = 0) =>
  (hit * 1 + (prompt - hit) * 2 + completion * 4) / 1_000_000;

/** A state dir and config file that outlive one process, removed on dispose. */
function sharedState(): { env: Record<string, string> } & Disposable {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-compaction-acp-")));
  writeFileSync(join(root, "config.toml"), CONFIG);
  return {
    env: { DSH_HOME: join(root, "home"), DSH_CONFIG: join(root, "config.toml") },
    [Symbol.dispose]: () => rmSync(root, { recursive: true, force: true }),
  };
}

function initialize(compaction: boolean): acp.InitializeRequest {
  const base = zedInitialize(false);
  return {
    ...base,
    clientCapabilities: {
      ...base.clientCapabilities,
      session: { configOptions: { boolean: {} }, ...(compaction ? { compaction: {} } : {}) },
    },
  };
}

const updatesOf = (dsh: AcpProcess, sessionId: string) =>
  dsh.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);

async function prompt(dsh: AcpProcess, sessionId: string, text: string) {
  return dsh.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text }] });
}

describe("dsh acp: compaction and cost", () => {
  for (const compaction of [true, false]) {
    test(`a client ${compaction ? "with" : "without"} session.compaction sees ${compaction ? "compaction_update" : "an agent message"}`, async () => {
      await using model = await startModelServer();
      using state = sharedState();
      await using dsh = await spawnAcp({ baseUrl: model.url, env: state.env });
      await dsh.agent.request(acp.methods.agent.initialize, initialize(compaction));
      const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
      model.script(
        answer("one ".repeat(3000), { prompt: 8500, completion: 100 }),
        answer("SUMMARY: one is done.", { prompt: 8000, completion: 10, cacheHit: 7000 }),
        answer("two done", { prompt: 300, completion: 5 }),
      );
      expect(await prompt(dsh, sessionId, "task one")).toEqual({ stopReason: "end_turn" });
      expect(await prompt(dsh, sessionId, "task two")).toEqual({ stopReason: "end_turn" });

      const updates = updatesOf(dsh, sessionId);
      const compactions = updates.filter((u) => u.sessionUpdate === "compaction_update");
      const notes = updates.filter(
        (u) =>
          u.sessionUpdate === "agent_message_chunk" &&
          u.content.type === "text" &&
          u.content.text.includes("Context compacted"),
      );
      if (compaction) {
        expect(compactions).toEqual([
          {
            sessionUpdate: "compaction_update",
            compactionId: expect.any(String),
            status: "in_progress",
          },
          {
            sessionUpdate: "compaction_update",
            compactionId:
              compactions[0]?.sessionUpdate === "compaction_update"
                ? compactions[0].compactionId
                : "",
            status: "completed",
            summary: [{ type: "text", text: "SUMMARY: one is done." }],
          },
        ]);
        expect(notes).toEqual([]);
      } else {
        expect(compactions).toEqual([]);
        expect(notes.length).toBe(1);
      }
      expect(model.requests[2]?.body.messages).toEqual([
        expect.objectContaining({ role: "system" }),
        expect.objectContaining({
          role: "user",
          content: expect.stringContaining("SUMMARY: one is done."),
        }),
      ]);
      await dsh.closeStdin();
      expect(dsh.problems).toEqual([]);
      expect(model.failures).toEqual([]);
    });
  }

  test("session/cancel during a compaction cancels it and leaves the history intact", async () => {
    await using model = await startModelServer();
    using state = sharedState();
    await using dsh = await spawnAcp({ baseUrl: model.url, env: state.env });
    await dsh.agent.request(acp.methods.agent.initialize, initialize(true));
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    model.script(answer("one ".repeat(3000), { prompt: 8500, completion: 100 }), {
      respond: { hang: true },
    });
    await prompt(dsh, sessionId, "task one");
    const second = prompt(dsh, sessionId, "task two");
    await model.received(1);
    await dsh.agent.notify(m.cancel, { sessionId });
    expect(await second).toEqual({ stopReason: "cancelled" });
    await model.aborted(1);
    expect(
      updatesOf(dsh, sessionId).flatMap((u) =>
        u.sessionUpdate === "compaction_update" ? [u.status] : [],
      ),
    ).toEqual(["in_progress", "cancelled"]);

    // The next prompt's summary request still reads all of task one.
    model.script(
      answer("SUMMARY: one.", { prompt: 8000, completion: 10 }),
      answer("three done", { prompt: 300, completion: 5 }),
    );
    expect(await prompt(dsh, sessionId, "task three")).toEqual({ stopReason: "end_turn" });
    expect(model.requests[2]?.body.messages).toEqual([
      expect.objectContaining({ role: "system" }),
      { role: "user", content: "task one" },
      expect.objectContaining({ role: "assistant", content: "one ".repeat(3000) }),
      expect.objectContaining({ role: "user" }),
    ]);
    await dsh.closeStdin();
    expect([dsh.problems, model.failures]).toEqual([[], []]);
  });

  test("usage_update.cost is prices × reported tokens, cumulative over prompts and across a restart", async () => {
    await using model = await startModelServer();
    using state = sharedState();
    model.script(
      answer("one", { prompt: 1000, completion: 50 }),
      answer("two", { prompt: 1100, completion: 60, cacheHit: 1000 }),
    );
    await using first = await spawnAcp({ baseUrl: model.url, env: state.env });
    await first.agent.request(acp.methods.agent.initialize, initialize(false));
    const { sessionId } = await first.agent.request(m.new, { cwd: first.cwd, mcpServers: [] });
    await prompt(first, sessionId, "one");
    await prompt(first, sessionId, "two");
    const costs = updatesOf(first, sessionId).flatMap((u) =>
      u.sessionUpdate === "usage_update" ? [u.cost?.amount] : [],
    );
    const afterOne = cost(1000, 50);
    const afterTwo = afterOne + cost(1100, 60, 1000);
    expect(costs.length).toBe(2);
    expect(costs[0]).toBeCloseTo(afterOne, 12);
    expect(costs[1]).toBeCloseTo(afterTwo, 12);
    await first.closeStdin();

    await using second = await spawnAcp({ baseUrl: model.url, env: state.env });
    await second.agent.request(acp.methods.agent.initialize, initialize(false));
    await second.agent.request(m.load, { sessionId, cwd: first.cwd, mcpServers: [] });
    // The replay ends with the meter and the cost as the first process left them.
    const replayed = updatesOf(second, sessionId).findLast(
      (u) => u.sessionUpdate === "usage_update",
    );
    expect(replayed).toMatchObject({ used: 1160, size: 10000 });
    expect(replayed?.sessionUpdate === "usage_update" && replayed.cost?.amount).toBeCloseTo(
      afterTwo,
      12,
    );
    model.script(answer("three", { prompt: 1200, completion: 70, cacheHit: 1100 }));
    await prompt(second, sessionId, "three");
    const last = updatesOf(second, sessionId).findLast((u) => u.sessionUpdate === "usage_update");
    expect(last).toEqual({
      sessionUpdate: "usage_update",
      used: 1270,
      size: 10000,
      cost: { amount: expect.any(Number), currency: "USD" },
    });
    expect(last?.sessionUpdate === "usage_update" && last.cost?.amount).toBeCloseTo(
      afterTwo + cost(1200, 70, 1100),
      12,
    );
    await second.closeStdin();
    expect([first.problems, second.problems, model.failures]).toEqual([[], [], []]);
  });
});
