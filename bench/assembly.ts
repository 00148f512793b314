/**
 * Request assembly on long sessions: the time from `session/prompt` to the model server having
 * the whole request (its last byte read), through the compiled `dsh acp`, on sessions of 1,000
 * and 10,000 turns (reopened with `session/resume`, so no replay is counted). Target: under
 * 10 ms at 10,000 turns. The time until the test server has also parsed the body (a JSON
 * document of a megabyte at 10,000 turns, the server's work and not dsh's) is a further row.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { silentLogger } from "../src/log.ts";
import { createSessionStore } from "../src/session/store.ts";
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

/** Per prompt, ms from `session/prompt` to the request's last byte, and to its parsed body. */
async function measure(sessionId: string): Promise<{ read: number[]; parsed: number[] }> {
  const read: number[] = [];
  const parsed: number[] = [];
  await withAcpAgent(
    { command: [binaryPath, "acp"], cwd, env: benchEnv(root, server.url) },
    async (agent) => {
      await agent.request(acp.methods.agent.session.resume, { sessionId, cwd, mcpServers: [] });
      for (let i = 0; i < PROMPTS; i++) {
        server.script(textTurn("ok"));
        const arrived = server.received(server.requests.length);
        const start = performance.now();
        const prompt = agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: `one more ${i}` }],
        });
        const request = await arrived;
        parsed.push(performance.now() - start);
        read.push(request.bodyReadAt - start);
        await prompt;
      }
    },
  );
  // The first prompt of a process also composes the agent; it is not assembly.
  return { read: read.slice(1), parsed: parsed.slice(1) };
}

try {
  const figures: Figure[] = [];
  for (const turns of [size(1_000, 100), size(10_000, 500)]) {
    const { read, parsed } = await measure(await generate(turns));
    const what = `${turns.toLocaleString("en")}-turn session`;
    figures.push({
      name: `prompt → model request, ${what}`,
      unit: "ms",
      samples: read,
      ...(turns >= 10_000 ? { target: { op: "<=" as const, value: 10 } } : {}),
    });
    figures.push({
      name: `prompt → model request parsed by the test server, ${what}`,
      unit: "ms",
      samples: parsed,
    });
  }
  emit(figures);
} finally {
  rmSync(root, { recursive: true, force: true });
}
