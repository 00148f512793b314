/**
 * Streaming: 100,000 small text deltas from a model server to an ACP client through the
 * compiled `dsh acp`, against a bare SDK agent writing the same notifications (the floor).
 * Figures: chunks per second when both write as fast as they can (target ≥ 0.5× the floor's),
 * and, with the chunks paced (one a millisecond, so nothing queues), the latency from the
 * moment a chunk was sent to the moment the client has it, p50 and p99; what dsh adds is the
 * difference to the floor's (target p99 under 1 ms).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { compile } from "../scripts/build.ts";
import { binaryPath, ensureBinary } from "../tests/support/binary.ts";
import { benchEnv, withAcpAgent } from "./lib/acp-agent.ts";
import { emit, size } from "./lib/figures.ts";
import { percentile } from "./stats.ts";

const CHUNKS = size(100_000, 2_000);
const PACED_CHUNKS = size(2_000, 200);
let paced = false;
const root = mkdtempSync(join(tmpdir(), "dsh-bench-stream-"));
const floorAgent = join(root, "stream-floor");
await compile(join(import.meta.dir, "fixtures", "stream-floor-agent.ts"), floorAgent);
await ensureBinary();
writeFileSync(join(root, "config.toml"), "");

const wallNow = () => performance.timeOrigin + performance.now();
const encoder = new TextEncoder();
const frame = (delta: object, finish: string | null) =>
  encoder.encode(
    `data: ${JSON.stringify({ id: "s", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
  );

/** A model endpoint that streams CHUNKS deltas, each holding the time it was written. */
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  fetch() {
    let sent = 0;
    const total = paced ? PACED_CHUNKS : CHUNKS;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (paced) await Bun.sleep(1);
        for (let n = 0; n < (paced ? 1 : 64) && sent < total; n++, sent++) {
          controller.enqueue(frame({ content: `${wallNow().toFixed(3)};` }, null));
        }
        if (sent >= total) {
          controller.enqueue(frame({}, "stop"));
          controller.enqueue(encoder.encode("data: [DONE]\n\n"));
          controller.close();
        }
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  },
});

/** One prompt through `command`; returns chunks per second and per-chunk latencies (ms). */
async function run(command: string[]): Promise<{ rate: number; latencies: number[] }> {
  const latencies: number[] = [];
  const env = benchEnv(root, `http://127.0.0.1:${server.port}`, {
    STREAM_CHUNKS: String(paced ? PACED_CHUNKS : CHUNKS),
    STREAM_PACE_MS: paced ? "1" : "0",
  });
  const onUpdate = ({ update }: acp.SessionNotification) => {
    if (update.sessionUpdate !== "agent_message_chunk" || update.content.type !== "text") return;
    const now = wallNow();
    // A delta may hold several sent times when the model stream's reads merged them.
    for (const stamp of update.content.text.split(";")) {
      if (stamp !== "") latencies.push(now - Number(stamp));
    }
  };
  const rate = await withAcpAgent({ command, cwd: root, env, onUpdate }, async (agent) => {
    const { sessionId } = await agent.request(acp.methods.agent.session.new, {
      cwd: root,
      mcpServers: [],
    });
    const start = performance.now();
    await agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "stream" }],
    });
    return (paced ? PACED_CHUNKS : CHUNKS) / ((performance.now() - start) / 1000);
  });
  return { rate, latencies };
}

try {
  const rates = { ours: [] as number[], floor: [] as number[] };
  const p50 = { ours: [] as number[], floor: [] as number[] };
  const p99 = { ours: [] as number[], floor: [] as number[] };
  for (let i = 0; i < size(3, 1); i++) {
    for (const [who, command] of [
      ["ours", [binaryPath, "acp"]],
      ["floor", [floorAgent]],
    ] as const) {
      paced = false;
      rates[who].push((await run([...command])).rate);
      paced = true;
      const { latencies } = await run([...command]);
      p50[who].push(percentile(latencies, 50));
      p99[who].push(percentile(latencies, 99));
    }
  }
  const added = (ours: number[], floor: number[]) => ours.map((v, i) => v - (floor[i] ?? 0));
  console.log(
    `paced latency p50 ${p50.ours.map((v) => v.toFixed(2))} vs floor ${p50.floor.map((v) => v.toFixed(2))}`,
  );
  console.log(
    `paced latency p99 ${p99.ours.map((v) => v.toFixed(2))} vs floor ${p99.floor.map((v) => v.toFixed(2))}`,
  );
  emit([
    {
      name: `streaming: ${CHUNKS.toLocaleString("en")} deltas, chunks per second`,
      unit: "/s",
      samples: rates.ours,
      floor: rates.floor,
      target: { op: ">=", value: 0.5, of: "ratio" },
    },
    {
      name: "streaming: latency dsh adds per chunk, p50",
      unit: "ms",
      samples: added(p50.ours, p50.floor),
    },
    {
      name: "streaming: latency dsh adds per chunk, p99",
      unit: "ms",
      samples: added(p99.ours, p99.floor),
      target: { op: "<=", value: 1 },
    },
  ]);
} finally {
  server.stop(true);
  rmSync(root, { recursive: true, force: true });
}
