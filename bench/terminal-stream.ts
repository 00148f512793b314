/**
 * The chat at a real terminal while an answer streams: the compiled `dsh chat` under a
 * pseudo-terminal, against a model endpoint in this process that streams a 2,000-line answer,
 * one line a chunk, paced one a millisecond, each line holding a marker of its own.
 *
 * - chunk to screen: from the moment a chunk is handed to the server's socket to the moment
 *   the bytes that draw its marker arrive from the terminal (one clock: both ends are this
 *   process), against a floor, a bare program that fetches the same stream and writes each
 *   chunk's text to the same kind of terminal as it comes.
 * - keystroke to echo while a turn streams: one key typed at a time during a long answer, from
 *   the write to the terminal to the redrawn prompt line that holds it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryPath, ensureBinary } from "../tests/support/binary.ts";
import { type PtyProcess, spawnPty } from "../tests/support/pty.ts";
import { emit, size } from "./lib/figures.ts";
import { median, percentile } from "./stats.ts";

const LINES = size(2_000, 200);
const KEYS = size(200, 30);
const RUNS = size(3, 1);
const encoder = new TextEncoder();
const frame = (delta: object, finish: string | null) =>
  encoder.encode(
    `data: ${JSON.stringify({ id: "s", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
  );
const marker = (n: number) => `mk${String(n).padStart(5, "0")}q`;

/** When each marker's chunk went out, by marker. */
let sentAt = new Map<string, number>();
/** Lines the next answer has, and whether they are paced. */
let lines = LINES;

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  fetch(request) {
    if (new URL(request.url).pathname.endsWith("/models"))
      return Response.json({ object: "list", data: [] });
    let sent = 0;
    const total = lines;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await Bun.sleep(1);
        if (sent < total) {
          const key = marker(sent);
          sentAt.set(key, performance.now());
          controller.enqueue(frame({ content: `line ${key} of the streamed answer\n` }, null));
          sent += 1;
          return;
        }
        controller.enqueue(frame({}, "stop"));
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  },
});
const url = `http://127.0.0.1:${server.port}`;

await ensureBinary();
const root = mkdtempSync(join(tmpdir(), "dsh-bench-terminal-"));
writeFileSync(join(root, "config.toml"), "");
const floorScript = join(root, "floor.ts");
// The floor: fetch the stream, write each chunk's text as it comes, nothing else.
writeFileSync(
  floorScript,
  `const response = await fetch(${JSON.stringify(`${url}/chat/completions`)}, { method: "POST", body: "{}" });
const decoder = new TextDecoder();
let carry = "";
for await (const bytes of response.body) {
  carry += decoder.decode(bytes, { stream: true });
  const events = carry.split("\\n\\n");
  carry = events.pop() ?? "";
  for (const event of events) {
    const data = event.replace(/^data: /, "");
    if (data === "[DONE]") continue;
    const text = JSON.parse(data).choices[0]?.delta?.content;
    if (text) process.stdout.write(text);
  }
}
`,
);
const env = {
  PATH: process.env.PATH ?? "",
  HOME: root,
  DSH_HOME: join(root, "home"),
  DSH_CONFIG: join(root, "config.toml"),
  DSH_BASE_URL: url,
  DSH_API_KEY: "bench",
};

/**
 * Each marker's latency from its send to the terminal's bytes that hold it. Markers arrive in
 * order, so each is awaited after the one before; `waitFor` settles in the same turn as the
 * read that brought it.
 */
async function latencies(pty: PtyProcess, count: number): Promise<number[]> {
  const times: number[] = [];
  let from = 0;
  for (let n = 0; n < count; n++) {
    const key = marker(n);
    await pty.waitFor(key, from);
    times.push(performance.now() - (sentAt.get(key) ?? Number.NaN));
    from = Math.max(0, pty.output().indexOf(key, from));
  }
  return times;
}

/** One streamed answer through `dsh chat`; per-chunk latencies in ms. */
async function throughDsh(): Promise<number[]> {
  sentAt = new Map();
  lines = LINES;
  await using pty = spawnPty([binaryPath, "chat"], { cwd: root, env, cols: 100, rows: 40 });
  await pty.waitFor("› ");
  const mark = pty.output().length;
  pty.type("stream it\r");
  await pty.waitFor("› stream it", mark);
  const result = await latencies(pty, LINES);
  await pty.waitFor(" tokens (");
  pty.type("\u0004");
  await pty.exited;
  return result;
}

/** The same stream printed by the floor program. */
async function throughFloor(): Promise<number[]> {
  sentAt = new Map();
  lines = LINES;
  await using pty = spawnPty(["bun", floorScript], { cwd: root, env, cols: 100, rows: 40 });
  const result = await latencies(pty, LINES);
  await pty.exited;
  return result;
}

/** Keys typed one at a time while a long answer streams; ms from the write to the echo. */
async function echoWhileStreaming(): Promise<number[]> {
  sentAt = new Map();
  lines = KEYS * 40;
  await using pty = spawnPty([binaryPath, "chat"], { cwd: root, env, cols: 100, rows: 40 });
  await pty.waitFor("› ");
  pty.type("stream it\r");
  await pty.waitFor(marker(5));
  const times: number[] = [];
  let typed = "";
  for (let i = 0; i < KEYS; i++) {
    const key = String.fromCharCode(97 + (i % 26));
    typed += key;
    const from = pty.output().length;
    const start = performance.now();
    pty.type(key);
    await pty.waitFor(`› ${typed}`, from);
    times.push(performance.now() - start);
    if (typed.length === 40) {
      pty.type("\u0015");
      typed = "";
      await pty.waitFor("› ", pty.output().length);
    }
  }
  await pty.waitFor(" tokens (");
  pty.type("\u0015\u0004");
  await pty.exited;
  return times;
}

try {
  const dsh: number[] = [];
  const floor: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    dsh.push(...(await throughDsh()));
    floor.push(...(await throughFloor()));
  }
  const echo = await echoWhileStreaming();
  const two = (n: number) => n.toFixed(2);
  console.log(
    `chunk to screen over ${LINES} lines × ${RUNS}: median ${two(median(dsh))} ms, p99 ${two(percentile(dsh, 99))} ms (floor: median ${two(median(floor))} ms, p99 ${two(percentile(floor, 99))} ms)`,
  );
  console.log(
    `keystroke to echo while a turn streams: median ${two(median(echo))} ms, p99 ${two(percentile(echo, 99))} ms (n=${echo.length})`,
  );
  emit([
    {
      name: "chat: chunk to screen p50",
      unit: "ms",
      samples: [median(dsh)],
      floor: [median(floor)],
      target: { op: "<=", value: 1 },
    },
    {
      name: "chat: chunk to screen p99",
      unit: "ms",
      samples: [percentile(dsh, 99)],
      floor: [percentile(floor, 99)],
    },
    {
      name: "chat: keystroke to echo while streaming",
      unit: "ms",
      samples: echo,
      target: { op: "<=", value: 16 },
    },
  ]);
} finally {
  await server.stop(true);
  rmSync(root, { recursive: true, force: true });
}
