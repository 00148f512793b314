/**
 * Request assembly on long sessions: the time from `session/prompt` to the model server having
 * the whole request (its last byte read), through the compiled `dsh acp`, on sessions of 1,000
 * and 10,000 turns (reopened with `session/resume`, so no replay is counted). Target: under
 * 10 ms at 10,000 turns. Each prompt is interleaved with one to a bare SDK agent that posts a
 * body of the same size read in advance (the floor): the ratio shows what dsh adds. The time
 * until the test server has also parsed the body (the server's work) is a further row. A last
 * row prompts two 10,000-turn sessions of one process by turns: each session writes its own
 * requests, so neither pays for the other's.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { silentLogger } from "../src/log.ts";
import { createSessionStore } from "../src/session/store.ts";
import { compile } from "../scripts/build.ts";
import { binaryPath, ensureBinary } from "../tests/support/binary.ts";
import { startModelServer, textTurn } from "../tests/support/model-server.ts";
import { benchEnv, withAcpAgent } from "./lib/acp-agent.ts";
import { type Figure, emit, size } from "./lib/figures.ts";

const PROMPTS = size(7, 2);
await ensureBinary();
const root = mkdtempSync(join(tmpdir(), "dsh-bench-assembly-"));
const cwd = join(root, "project");
const home = join(root, "home");
mkdirSync(cwd);
writeFileSync(join(root, "config.toml"), "");
const store = createSessionStore({ home, logger: silentLogger });
await using server = await startModelServer();
const floorAgent = join(root, "assembly-floor");
await compile(join(import.meta.dir, "fixtures", "assembly-floor-agent.ts"), floorAgent);

async function generate(turns: number): Promise<string> {
  await using log = await store.create({ cwd });
  for (let i = 0; i < turns; i++) {
    const turnId = `t${i}`;
    log.append({ type: "turn_start", turnId });
    log.append({
      type: "user_message",
      turnId,
      content: [{ type: "text", text: `question ${i}` }],
    });
    log.append({ type: "prompt_submit", turnId });
    log.append({ type: "assistant_text", turnId, step: 1, text: `answer ${i}` });
    log.append({ type: "usage", turnId, promptTokens: 10 * i + 20, completionTokens: 5 });
    log.append({ type: "turn_end", turnId, reason: "end_turn" });
  }
  return log.header.id;
}

interface Arrival {
  /** ms from `session/prompt` to the request's last byte read by the server. */
  readonly read: number;
  /** ms from `session/prompt` to the server having parsed the body too. */
  readonly parsed: number;
  readonly body: Record<string, unknown>;
}

/** One prompt to `agent`, timed to the model request it makes. */
async function promptOnce(agent: acp.ClientContext, sessionId: string, i: number) {
  server.script(textTurn("ok"));
  const arrived = server.received(server.requests.length);
  const start = performance.now();
  const prompt = agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: `one more ${i}` }],
  });
  const request = await arrived;
  const arrival: Arrival = {
    read: request.bodyReadAt - start,
    parsed: performance.now() - start,
    body: request.body,
  };
  await prompt;
  return arrival;
}

/**
 * Prompts dsh and the floor in turn, each in its own process for the whole run. The first
 * prompt of a process also composes the agent (it is not assembly); the floor posts the body
 * of dsh's first request.
 */
async function measure(sessionId: string): Promise<{ dsh: Arrival[]; floor: Arrival[] }> {
  const dsh: Arrival[] = [];
  const floor: Arrival[] = [];
  const resume = { sessionId, cwd, mcpServers: [] };
  await withAcpAgent(
    { command: [binaryPath, "acp"], cwd, env: benchEnv(root, server.url) },
    async (agent) => {
      await agent.request(acp.methods.agent.session.resume, resume);
      const bodyPath = join(root, `${sessionId}.body.json`);
      writeFileSync(bodyPath, JSON.stringify((await promptOnce(agent, sessionId, 0)).body));
      const env = benchEnv(root, server.url, { ASSEMBLY_BODY: bodyPath });
      await withAcpAgent({ command: [floorAgent], cwd, env }, async (bare) => {
        await bare.request(acp.methods.agent.session.resume, resume);
        await promptOnce(bare, sessionId, 0);
        for (let i = 1; i < PROMPTS; i++) {
          dsh.push(await promptOnce(agent, sessionId, i));
          floor.push(await promptOnce(bare, sessionId, i));
        }
      });
    },
  );
  return { dsh, floor };
}

/**
 * Prompts two sessions of one dsh process by turns, each interleaved with a prompt to the floor
 * (which posts a body of the first session's first request).
 */
async function measureTwo(
  first: string,
  second: string,
): Promise<{ dsh: Arrival[]; floor: Arrival[] }> {
  const dsh: Arrival[] = [];
  const floor: Arrival[] = [];
  const resume = (sessionId: string) => ({ sessionId, cwd, mcpServers: [] });
  await withAcpAgent(
    { command: [binaryPath, "acp"], cwd, env: benchEnv(root, server.url) },
    async (agent) => {
      await agent.request(acp.methods.agent.session.resume, resume(first));
      await agent.request(acp.methods.agent.session.resume, resume(second));
      const bodyPath = join(root, `${first}.both.body.json`);
      writeFileSync(bodyPath, JSON.stringify((await promptOnce(agent, first, 0)).body));
      await promptOnce(agent, second, 0);
      const env = benchEnv(root, server.url, { ASSEMBLY_BODY: bodyPath });
      await withAcpAgent({ command: [floorAgent], cwd, env }, async (bare) => {
        await bare.request(acp.methods.agent.session.resume, resume(first));
        await promptOnce(bare, first, 0);
        for (let i = 1; i < PROMPTS; i++) {
          for (const sessionId of [first, second]) {
            dsh.push(await promptOnce(agent, sessionId, i));
            floor.push(await promptOnce(bare, first, i));
          }
        }
      });
    },
  );
  return { dsh, floor };
}

try {
  const figures: Figure[] = [];
  for (const turns of [size(1_000, 100), size(10_000, 500)]) {
    const { dsh, floor } = await measure(await generate(turns));
    const what = `${turns.toLocaleString("en")}-turn session`;
    const bytes = JSON.stringify(dsh.at(-1)?.body ?? {}).length;
    console.log(`${what}: request bodies of about ${(bytes / 1e6).toFixed(2)} MB`);
    figures.push({
      name: `prompt → model request, ${what}`,
      unit: "ms",
      samples: dsh.map((a) => a.read),
      floor: floor.map((a) => a.read),
      ...(turns >= 10_000 ? { target: { op: "<=" as const, value: 10 } } : {}),
    });
    figures.push({
      name: `prompt → model request parsed by the test server, ${what}`,
      unit: "ms",
      samples: dsh.map((a) => a.parsed),
      floor: floor.map((a) => a.parsed),
    });
  }
  const turns = size(10_000, 500);
  const both = await measureTwo(await generate(turns), await generate(turns));
  figures.push({
    name: `prompt → model request, two ${turns.toLocaleString("en")}-turn sessions by turns`,
    unit: "ms",
    samples: both.dsh.map((a) => a.read),
    floor: both.floor.map((a) => a.read),
  });
  emit(figures);
} finally {
  rmSync(root, { recursive: true, force: true });
}
