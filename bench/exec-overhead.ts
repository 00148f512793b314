/**
 * Overhead of `dsh exec` over the raw model stream: the same scripted answer fetched straight
 * from the test server (curl-like, with fetch) versus through the compiled binary end to end,
 * and the time to the first token: the first text chunk of the raw stream versus the first
 * `text` event of `dsh exec --json`, each from the start of the request or of the process.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryPath } from "../tests/support/binary.ts";
import { chunks, startModelServer, type ScriptedTurn } from "../tests/support/model-server.ts";
import { emit, size } from "./lib/figures.ts";
import { median, report, timeRuns } from "./stats.ts";

const RUNS = size(30, 3);
const answer = "The quick brown fox jumps over the lazy dog. ".repeat(40);
const turn = (): ScriptedTurn => ({
  respond: {
    stream: [
      ...chunks(answer, 16).map((text) => ({ text })),
      { finish: "stop" as const },
      { done: true as const },
    ],
  },
});

await using server = await startModelServer();
const root = mkdtempSync(join(tmpdir(), "dsh-bench-"));
writeFileSync(join(root, "config.toml"), "");
try {
  server.script(...Array.from({ length: RUNS + 3 }, turn));
  const raw = await timeRuns(RUNS, 3, async () => {
    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      }),
    });
    await response.text();
  });
  server.script(...Array.from({ length: RUNS + 3 }, turn));
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: root,
    DSH_HOME: join(root, "home"),
    DSH_CONFIG: join(root, "config.toml"),
    DSH_BASE_URL: server.url,
    DSH_API_KEY: "bench",
  };
  const viaDsh = await timeRuns(RUNS, 3, async () => {
    const proc = Bun.spawn([binaryPath, "exec", "hi"], {
      cwd: root,
      env,
      stdout: "pipe",
      stderr: "ignore",
    });
    const out = await new Response(proc.stdout).text();
    if ((await proc.exited) !== 0 || out.trim() !== answer.trim())
      throw new Error("dsh exec failed");
  });
  server.script(...Array.from({ length: RUNS + 3 }, turn));
  const rawFirst: number[] = [];
  await timeRuns(RUNS, 3, async () => {
    const start = performance.now();
    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      }),
    });
    const decoder = new TextDecoder();
    let seen = "";
    let first = true;
    for await (const chunk of response.body ?? []) {
      seen += decoder.decode(chunk, { stream: true });
      if (first && seen.includes('"content":')) {
        rawFirst.push(performance.now() - start);
        first = false;
      }
    }
  });
  server.script(...Array.from({ length: RUNS + 3 }, turn));
  const dshFirst: number[] = [];
  await timeRuns(RUNS, 3, async () => {
    const start = performance.now();
    const proc = Bun.spawn([binaryPath, "exec", "--json", "hi"], {
      cwd: root,
      env,
      stdout: "pipe",
      stderr: "ignore",
    });
    const decoder = new TextDecoder();
    let seen = "";
    let first = true;
    for await (const chunk of proc.stdout) {
      seen += decoder.decode(chunk, { stream: true });
      if (first && seen.includes('{"type":"text"')) {
        dshFirst.push(performance.now() - start);
        first = false;
      }
    }
    if ((await proc.exited) !== 0) throw new Error("dsh exec --json failed");
  });
  // timeRuns' warm-up runs pushed too: keep the measured runs only.
  rawFirst.splice(0, rawFirst.length - RUNS);
  dshFirst.splice(0, dshFirst.length - RUNS);
  report("raw stream (fetch)", raw);
  report("dsh exec end to end", viaDsh);
  console.log(`overhead of dsh exec: ${(median(viaDsh) - median(raw)).toFixed(1)} ms (median)`);
  report("first token, raw stream", rawFirst);
  report("first token, dsh exec --json (from spawn)", dshFirst);
  console.log(
    `start-to-first-token overhead of dsh exec: ${(median(dshFirst) - median(rawFirst)).toFixed(1)} ms (median)`,
  );
  emit([
    {
      name: "dsh exec end to end (floor: the raw stream)",
      unit: "ms",
      samples: viaDsh,
      floor: raw,
    },
    {
      name: "dsh exec start to first token (floor: the raw stream's first chunk)",
      unit: "ms",
      samples: dshFirst,
      floor: rawFirst,
    },
  ]);
} finally {
  rmSync(root, { recursive: true, force: true });
}
