/**
 * What a turn keeps on the JS heap: one session of 1,000 sequential text turns through the
 * real agent service (`compose()`, the session log, the folds, the request writer, the client)
 * in this process, against the test model server in another (`serve-script.ts`). Over turns
 * 500–1,000, every 50 turns, a forced full collection (`Bun.gc(true)`) and then the heap's live
 * size (`heapStats().heapSize`); the figure is their least-squares slope in bytes a turn. It is
 * what `memory.ts` measures as RSS, without the collector's timing in it.
 */
import { heapStats } from "bun:jsc";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestAgent } from "../tests/support/agent.ts";
import { textTurn } from "../tests/support/model-server.ts";
import { emit, size } from "./lib/figures.ts";
import { slope } from "./stats.ts";

const TURNS = size(1_000, 20);
const SAMPLE_EVERY = size(50, 2);

// The server runs in a process of its own: its record of every request must not be on the
// heap measured here.
const scriptDir = mkdtempSync(join(tmpdir(), "dsh-bench-turn-heap-"));
const script = join(scriptDir, "turns.json");
writeFileSync(
  script,
  JSON.stringify(Array.from({ length: TURNS }, (_, i) => textTurn(`answer ${i + 1} `.repeat(20)))),
);
const server = Bun.spawn(
  ["bun", join(import.meta.dir, "..", "tests", "support", "serve-script.ts"), script],
  {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  },
);
const reader = server.stdout.getReader();
let line = "";
while (!line.includes("\n")) {
  const { value, done } = await reader.read();
  if (done) throw new Error("the model server ended before it printed its URL");
  line += new TextDecoder().decode(value);
}
const { url } = JSON.parse(line) as { url: string };

/** The live heap in bytes after a full collection. */
function liveHeap(): number {
  Bun.gc(true);
  Bun.gc(true);
  return heapStats().heapSize;
}

try {
  await using agent = createTestAgent({ baseUrl: url });
  await using handle = await agent.composition.service.create({ cwd: agent.cwd });
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 1; i <= TURNS; i++) {
    const outcome = await handle.prompt(
      [{ type: "text", text: `question ${i}` }],
      new AbortController().signal,
    );
    if (outcome.reason !== "end_turn") throw new Error(`turn ${i} ended ${outcome.reason}`);
    if (i >= TURNS / 2 && i % SAMPLE_EVERY === 0) {
      xs.push(i);
      ys.push(liveHeap());
    }
  }
  const perTurn = slope(xs, ys);
  console.log(
    `live heap after ${xs[0]} turns ${((ys[0] ?? 0) / 1024 / 1024).toFixed(2)} MB, after ${TURNS} ${((ys.at(-1) ?? 0) / 1024 / 1024).toFixed(2)} MB: ${perTurn.toFixed(0)} bytes a turn`,
  );
  emit([
    {
      name: `live heap a turn keeps over turns ${(TURNS / 2).toLocaleString("en")}–${TURNS.toLocaleString("en")} (in process, after Bun.gc)`,
      unit: "bytes",
      samples: [perTurn],
    },
  ]);
} finally {
  server.stdin.end();
  await server.exited;
  rmSync(scriptDir, { recursive: true, force: true });
}
