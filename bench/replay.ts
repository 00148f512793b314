/**
 * `session/load` of long sessions through the compiled binary: open, validate and replay logs
 * of 10,000 and 100,000 events (tool-using turns of 9 events each), measured from the request
 * to its response (every replayed update is written before the response), with the process's
 * peak RSS. Targets: 100,000 events in under 1 s and 200 MB, judged with a client that takes
 * each line with `JSON.parse` as a compiled client does (Zed: serde). The SDK's own client app,
 * which validates every notification with zod, is measured too: there the client dominates.
 * Each run is interleaved with one of a bare SDK agent sending the same notifications (the
 * floor), so the ratio shows what dsh adds to the same client.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { clientOptionsOf } from "../src/acp/capabilities.ts";
import { availableCommandsUpdate } from "../src/acp/commands.ts";
import { replayUpdates } from "../src/acp/replay.ts";
import { silentLogger } from "../src/log.ts";
import { createSessionStore } from "../src/session/store.ts";
import { compile } from "../scripts/build.ts";
import { binaryPath, ensureBinary } from "../tests/support/binary.ts";
import { readSessionLog } from "../tests/support/read-session.ts";
import { withAcpAgent } from "./lib/acp-agent.ts";
import { withLineClient } from "./lib/line-client.ts";
import { type Figure, emit, size } from "./lib/figures.ts";

const EVENTS_PER_TURN = 9;
await ensureBinary();
const root = mkdtempSync(join(tmpdir(), "dsh-bench-replay-"));
const cwd = join(root, "project");
const home = join(root, "home");
mkdirSync(cwd);
writeFileSync(join(root, "config.toml"), "");
const store = createSessionStore({ home, logger: silentLogger });
const floorAgent = join(root, "replay-floor");
await compile(join(import.meta.dir, "fixtures", "replay-floor-agent.ts"), floorAgent);

/** What dsh sends for loading `sessionId` (this client declares no capabilities), one a line. */
async function writeUpdates(sessionId: string): Promise<string> {
  const { events } = await readSessionLog(home, sessionId);
  const updates = [...replayUpdates(events, clientOptionsOf(undefined)), availableCommandsUpdate()];
  const path = join(root, `${sessionId}.updates.jsonl`);
  writeFileSync(path, updates.map((update) => `${JSON.stringify(update)}\n`).join(""));
  return path;
}

/** A session of `events` events: turns that read, edit and answer. */
async function generate(events: number): Promise<string> {
  await using log = await store.create({ cwd });
  const file = join(cwd, "src.ts");
  const body = "export const value = 1;\n".repeat(8);
  for (let i = 0; i < Math.ceil(events / EVENTS_PER_TURN); i++) {
    const turnId = `t${i}`;
    log.append({ type: "turn_start", turnId });
    log.append({ type: "user_message", turnId, content: [{ type: "text", text: `change ${i}` }] });
    log.append({ type: "prompt_submit", turnId });
    log.append({ type: "reasoning", turnId, step: 1, text: "I will edit the file. ".repeat(4) });
    const intent = {
      type: "diff" as const,
      title: "Edit src.ts",
      path: file,
      oldText: body,
      newText: `${body}// ${i}\n`,
    };
    log.append({
      type: "tool_call",
      turnId,
      step: 1,
      callId: `c${i}`,
      name: "edit_file",
      arguments: "{}",
      intent,
    });
    log.append({
      type: "tool_result",
      turnId,
      callId: `c${i}`,
      isError: false,
      output: "edited",
      intent,
    });
    log.append({ type: "assistant_text", turnId, step: 2, text: "Done. ".repeat(10) });
    log.append({ type: "usage", turnId, promptTokens: 1000 + i, completionTokens: 50 });
    log.append({ type: "turn_end", turnId, reason: "end_turn" });
  }
  return log.header.id;
}

const env = {
  PATH: process.env.PATH ?? "",
  HOME: root,
  DSH_HOME: home,
  DSH_CONFIG: join(root, "config.toml"),
  DSH_BASE_URL: "http://127.0.0.1:9",
  DSH_API_KEY: "bench",
};

interface Load {
  readonly ms: number;
  readonly peakMb: number;
  readonly updates: number;
}

/** The process's peak RSS so far, in MB. */
function peakMbOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** A client that takes each line with `JSON.parse` (as Zed's serde would): the judged figure. */
async function loadLines(
  sessionId: string,
  command: readonly string[],
  extraEnv: Record<string, string> = {},
): Promise<Load> {
  const run = { command, cwd, env: { ...env, ...extraEnv } };
  return withLineClient(run, async (client) => {
    const start = performance.now();
    await client.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    const ms = performance.now() - start;
    return { ms, peakMb: peakMbOf(client.pid), updates: client.updates };
  });
}

/** The SDK's client app, which validates every notification (zod) before handing it on. */
async function loadSdk(
  sessionId: string,
  command: readonly string[],
  extraEnv: Record<string, string> = {},
): Promise<Load> {
  let updates = 0;
  const onUpdate = () => {
    updates++;
  };
  const run = { command, cwd, env: { ...env, ...extraEnv }, onUpdate };
  return withAcpAgent(run, async (agent, pid) => {
    const start = performance.now();
    await agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    const ms = performance.now() - start;
    return { ms, peakMb: peakMbOf(pid), updates };
  });
}

/**
 * `runs` interleaved rounds of each load, after one warm-up round. Each starts with this
 * process's garbage collected, so the client's pauses are its own.
 */
async function interleave(
  runs: number,
  loads: Readonly<Record<string, () => Promise<Load>>>,
): Promise<Record<string, Load[]>> {
  const results: Record<string, Load[]> = {};
  for (const load of Object.values(loads)) await load();
  for (let i = 0; i < runs; i++) {
    for (const [name, load] of Object.entries(loads)) {
      Bun.gc(true);
      const result = await load();
      (results[name] ??= []).push(result);
    }
  }
  return results;
}

try {
  const figures: Figure[] = [];
  for (const [events, target] of [
    [size(10_000, 1_000), undefined],
    [size(100_000, 2_000), 1_000],
  ] as const) {
    const sessionId = await generate(events);
    const bytes = statSync(join(home, "sessions", `${sessionId}.jsonl`)).size;
    const dsh = [binaryPath, "acp"];
    const floorEnv = { REPLAY_UPDATES: await writeUpdates(sessionId) };
    const lines = await interleave(size(5, 1), {
      dsh: () => loadLines(sessionId, dsh),
      floor: () => loadLines(sessionId, [floorAgent], floorEnv),
    });
    const sdk = await interleave(size(3, 1), {
      dsh: () => loadSdk(sessionId, dsh),
      floor: () => loadSdk(sessionId, [floorAgent], floorEnv),
    });
    const ms = (loads: Load[] | undefined) => (loads ?? []).map((load) => load.ms);
    const what = `${events.toLocaleString("en")} events`;
    const sent = lines.dsh?.[0]?.updates ?? 0;
    console.log(`${what}: ${(bytes / 1e6).toFixed(1)} MB of log, ${sent} updates`);
    const counts = [...Object.values(lines), ...Object.values(sdk)].flat().map((l) => l.updates);
    if (counts.some((count) => count !== sent)) {
      throw new Error(`the loads sent different numbers of updates: ${counts.join(", ")}`);
    }
    figures.push({
      name: `session/load of ${what}, JSON client`,
      unit: "ms",
      samples: ms(lines.dsh),
      floor: ms(lines.floor),
      ...(target === undefined ? {} : { target: { op: "<=" as const, value: target } }),
    });
    figures.push({
      name: `peak RSS loading ${what}`,
      unit: "MB",
      samples: (lines.dsh ?? []).map((load) => load.peakMb),
      ...(target === undefined ? {} : { target: { op: "<=" as const, value: 200 } }),
    });
    figures.push({
      name: `session/load of ${what}, SDK client`,
      unit: "ms",
      samples: ms(sdk.dsh),
      floor: ms(sdk.floor),
    });
  }
  emit(figures);
} finally {
  rmSync(root, { recursive: true, force: true });
}
