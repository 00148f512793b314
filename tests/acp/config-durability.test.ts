/**
 * Turn-enclosed durability of config changes, against the compiled `dsh acp` killed with
 * SIGKILL: an idle change lives in memory until the next prompt anchors it; a change during a
 * turn is on disk at once. A new process loading the session shows what the log says.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { zedInitialize } from "../support/acp-harness.ts";
import { type AcpProcess, spawnAcp } from "../support/acp-process.ts";
import { type ModelServer, startModelServer, textTurn } from "../support/model-server.ts";
import { currentValues, readLog } from "../permission/rig.ts";
import { FIRST_TURN_OPENING } from "../support/session-events.ts";

const m = acp.methods.agent.session;

let root: string;
let home: string;
let project: string;
let model: ModelServer;
beforeEach(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-durable-")));
  home = join(root, "home");
  project = join(root, "project");
  mkdirSync(project);
  model = await startModelServer();
});
afterEach(async () => {
  await model[Symbol.asyncDispose]();
  rmSync(root, { recursive: true, force: true });
});

/** A `dsh acp` on the shared state dir, initialized. */
async function start(): Promise<AcpProcess> {
  const dsh = await spawnAcp({ baseUrl: model.url, env: { DSH_HOME: home } });
  await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(false));
  return dsh;
}

async function kill(dsh: AcpProcess): Promise<void> {
  dsh.proc.kill("SIGKILL");
  await dsh.proc.exited;
}

/** What a fresh process shows for the session. */
async function reloaded(sessionId: string): Promise<Record<string, unknown>> {
  await using dsh = await start();
  const { configOptions } = await dsh.agent.request(m.load, {
    sessionId,
    cwd: project,
    mcpServers: [],
  });
  expect(dsh.problems).toEqual([]);
  return currentValues(configOptions);
}

const set = (dsh: AcpProcess, sessionId: string, configId: string, value: string) =>
  dsh.agent.request(m.setConfigOption, { sessionId, configId, value });

const types = (sessionId: string) => readLog(home, sessionId).map((e) => e.type);

const DEFAULTS = { permission: "workspace-write", model: "deepseek-flash", effort: "high" };

describe("durability of config changes", () => {
  test("an idle change is shown at once, and a kill before the next prompt loses only it", async () => {
    await using dsh = await start();
    const { sessionId } = await dsh.agent.request(m.new, { cwd: project, mcpServers: [] });
    model.script(textTurn("ok"));
    await set(dsh, sessionId, "effort", "low");
    await dsh.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
    await set(dsh, sessionId, "model", "deepseek-v4-pro");
    const { configOptions } = await set(dsh, sessionId, "permission", "read-only");
    expect(currentValues(configOptions)).toEqual({
      permission: "read-only",
      model: "deepseek-v4-pro",
      effort: "low",
    });
    expect(types(sessionId).slice(-1)).toEqual(["turn_end"]);
    await kill(dsh);
    expect(await reloaded(sessionId)).toEqual({ ...DEFAULTS, effort: "low" });
  });

  test("a change then a prompt: anchored right after the prompt, before the model is asked, and kept", async () => {
    await using dsh = await start();
    const { sessionId } = await dsh.agent.request(m.new, { cwd: project, mcpServers: [] });
    await set(dsh, sessionId, "model", "deepseek-v4-pro");
    await set(dsh, sessionId, "permission", "danger-full-access");
    model.script(textTurn("ok"));
    await dsh.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(model.requests[0]?.body.model).toBe("deepseek-v4-pro");
    expect(types(sessionId)).toEqual([
      "header",
      ...FIRST_TURN_OPENING,
      "usage",
      "assistant_text",
      "turn_end",
    ]);
    await kill(dsh);
    expect(await reloaded(sessionId)).toEqual({
      ...DEFAULTS,
      permission: "danger-full-access",
      model: "deepseek-v4-pro",
    });
  });

  test("a change during a turn is on disk at once and survives a kill mid-turn", async () => {
    await using dsh = await start();
    const { sessionId } = await dsh.agent.request(m.new, { cwd: project, mcpServers: [] });
    const never = Promise.withResolvers<void>();
    model.script({ respond: { stream: [{ text: "working" }, { until: never.promise }] } });
    const prompt = dsh.agent.request(m.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "long job" }],
    });
    prompt.catch(() => undefined);
    await model.received(0);
    await set(dsh, sessionId, "permission", "read-only");
    // Read while the turn is still open: nothing has ended it or flushed it on its behalf.
    const log = readLog(home, sessionId);
    // A session's first turn records every setting, then the change lands at once.
    expect(log.map((e) => e.type)).toEqual(["header", ...FIRST_TURN_OPENING, "sandbox_mode"]);
    expect(log.at(-1)).toMatchObject({ type: "sandbox_mode", mode: "read-only" });
    await kill(dsh);
    expect(await reloaded(sessionId)).toEqual({ ...DEFAULTS, permission: "read-only" });
  });
});
