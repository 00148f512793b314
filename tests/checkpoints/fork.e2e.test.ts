/**
 * `/fork` and ACP `session/fork` through the compiled `dsh acp`: a second session with the
 * same history, its own id and log, listed by session/list; the original unchanged.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { type AcpProcess, spawnAcp } from "../support/acp-process.ts";
import { ensureBinary } from "../support/binary.ts";
import { promptFor, userTexts } from "./acp-turns.ts";
import { type ModelServer, startModelServer, textTurn } from "../support/model-server.ts";

const m = acp.methods.agent.session;

beforeAll(async () => {
  await ensureBinary();
});

async function say(dsh: AcpProcess, sessionId: string, text: string): Promise<string> {
  return (await promptFor(dsh, sessionId, text)).reply;
}

/** A session with two answered prompts. */
async function twoTurns(dsh: AcpProcess, model: ModelServer): Promise<string> {
  const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
  model.script(textTurn("first answer"), textTurn("second answer"));
  await say(dsh, sessionId, "one");
  await say(dsh, sessionId, "two");
  return sessionId;
}

describe("fork", () => {
  test("/fork saves a second session with the same history; the original is unchanged", async () => {
    await using model = await startModelServer();
    await using dsh = await spawnAcp({ baseUrl: model.url });
    await dsh.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    const sessionId = await twoTurns(dsh, model);
    const original = readFileSync(join(dsh.home, "sessions", `${sessionId}.jsonl`), "utf8");
    const reply = await say(dsh, sessionId, "/fork");
    const forkId = /Forked into session ([0-9a-f-]{36})/.exec(reply)?.[1] ?? "";
    expect(forkId).not.toBe("");
    expect(forkId).not.toBe(sessionId);
    expect(readFileSync(join(dsh.home, "sessions", `${sessionId}.jsonl`), "utf8")).toBe(original);
    const listed = (await dsh.agent.request(m.list, {})).sessions.map((s) => s.sessionId);
    expect(listed.sort()).toEqual([sessionId, forkId].sort());

    await dsh.agent.request(m.load, { sessionId: forkId, cwd: dsh.cwd, mcpServers: [] });
    model.script(textTurn("forked answer"));
    const next = model.requests.length;
    await say(dsh, forkId, "three");
    expect(userTexts(model, next)).toEqual(["one", "two", "three"]);
    // `/fork 1` leaves the last turn out.
    const shorter = /Forked into session ([0-9a-f-]{36})/.exec(
      await say(dsh, sessionId, "/fork 1"),
    )?.[1];
    await dsh.agent.request(m.load, { sessionId: shorter ?? "", cwd: dsh.cwd, mcpServers: [] });
    model.script(textTurn("shorter"));
    const after = model.requests.length;
    await say(dsh, shorter ?? "", "again");
    expect(userTexts(model, after)).toEqual(["one", "again"]);
    expect(dsh.problems).toEqual([]);
  });

  test("session/fork is advertised and gives a new live session holding the history", async () => {
    await using model = await startModelServer();
    await using dsh = await spawnAcp({ baseUrl: model.url });
    const init = await dsh.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ fork: {} });
    const sessionId = await twoTurns(dsh, model);
    const request = dsh.agent.request as unknown as (
      method: string,
      params: unknown,
    ) => Promise<{ sessionId: string; configOptions?: unknown[] }>;
    const forked = await request.call(dsh.agent, "session/fork", {
      sessionId,
      cwd: dsh.cwd,
      mcpServers: [],
    });
    expect(forked.sessionId).not.toBe(sessionId);
    expect(forked.configOptions?.length).toBeGreaterThan(0);
    model.script(textTurn("in the fork"), textTurn("in the original"));
    const next = model.requests.length;
    await say(dsh, forked.sessionId, "three");
    expect(userTexts(model, next)).toEqual(["one", "two", "three"]);
    await say(dsh, sessionId, "still two?");
    expect(userTexts(model, next + 1)).toEqual(["one", "two", "still two?"]);
    const listed = (await dsh.agent.request(m.list, {})).sessions.map((s) => s.sessionId);
    expect(listed.sort()).toEqual([sessionId, forked.sessionId].sort());
    // A saved (closed) session forks too; bad params name what is wrong.
    await dsh.agent.request(m.close, { sessionId });
    const again = await request.call(dsh.agent, "session/fork", { sessionId, cwd: dsh.cwd });
    expect(again.sessionId).not.toBe(sessionId);
    const bad = await request
      .call(dsh.agent, "session/fork", { sessionId, cwd: 7 })
      .catch((error: unknown) => error);
    expect((bad as acp.RequestError).code).toBe(-32602);
    expect(dsh.problems).toEqual([]);
  });
});
