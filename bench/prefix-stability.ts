/**
 * Prefix stability of one long tool session: 50 model steps (reads, greps, globs and commands,
 * some with outputs past the tool output budget) against the test model server, with a window
 * small enough that the context is compacted on the way. For each request it reports how much
 * of the previous request is an unchanged prefix of it (what the provider's prefix cache can
 * serve; the target is 100% outside compactions) and the tokens it sends.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { estimateTokens } from "../src/llm/tokens.ts";
import { createTestAgent } from "../tests/support/agent.ts";
import {
  type RecordedRequest,
  type Respond,
  type StreamEvent,
  startModelServer,
} from "../tests/support/model-server.ts";

const STEPS = 50;
const WINDOW = 131_072;

/** The tool call of step `n` (1-based); the last step answers in text. */
function stepCall(n: number): { name: string; args: unknown } | undefined {
  if (n === STEPS) return undefined;
  switch (n % 5) {
    case 0:
      return { name: "read_file", args: { path: `src/module-${n % 7}.ts` } };
    case 1:
      return { name: "grep", args: { pattern: `value${n % 9}`, path: "src" } };
    case 2:
      return { name: "glob", args: { pattern: "src/**/*.ts" } };
    case 3:
      return { name: "read_file", args: { path: "logs/build.log" } };
    default:
      return { name: "bash", args: { command: `seq 1 ${2000 + n * 500}` } };
  }
}

const Body = v.looseObject({
  messages: v.array(v.unknown()),
  tools: v.optional(v.array(v.unknown())),
  tool_choice: v.optional(v.string()),
});

/** The bytes each message of a request serializes to, with the tools first. */
function parts(request: RecordedRequest): string[] {
  const body = v.parse(Body, request.body);
  return [JSON.stringify(body.tools ?? []), ...body.messages.map((m) => JSON.stringify(m))];
}

/** Bytes of `previous` that `next` repeats unchanged from its start, whole parts at a time. */
function sharedPrefixBytes(previous: readonly string[], next: readonly string[]): number {
  let bytes = 0;
  for (const [i, part] of previous.entries()) {
    if (next[i] !== part) break;
    bytes += part.length;
  }
  return bytes;
}

const total = (list: readonly string[]) => list.reduce((sum, part) => sum + part.length, 0);

await using server = await startModelServer();
await using agent = createTestAgent({
  baseUrl: server.url,
  configToml: `[[models]]\nid = "deepseek-flash"\ncontext_window = ${WINDOW}\n`,
});
mkdirSync(join(agent.cwd, "src"));
mkdirSync(join(agent.cwd, "logs"));
for (let i = 0; i < 7; i++) {
  const lines = Array.from(
    { length: 300 },
    (_, k) => `export const value${k % 9}_${i}_${k} = ${k};`,
  );
  writeFileSync(join(agent.cwd, "src", `module-${i}.ts`), `${lines.join("\n")}\n`);
}
writeFileSync(
  join(agent.cwd, "logs", "build.log"),
  Array.from({ length: 1500 }, (_, k) => `[${k}] compiled unit ${k} in ${k % 97} ms`).join("\n"),
);

let previous: string[] | undefined;
let step = 0;
const respond = (request: RecordedRequest): Respond => {
  const current = parts(request);
  const hit = previous === undefined ? 0 : sharedPrefixBytes(previous, current);
  const usage = {
    prompt: estimateTokens(current.join("")),
    completion: 40,
    cacheHit: Math.min(estimateTokens(current.join("")), Math.floor(hit / 4)),
  };
  previous = current;
  const finish = (events: StreamEvent[]): Respond => ({
    stream: [...events, { usage }, { done: true }],
  });
  if (v.parse(Body, request.body).tool_choice === "none") {
    return finish([
      { text: "Summary: the session reads modules, logs and runs seq." },
      { finish: "stop" },
    ]);
  }
  step += 1;
  const call = stepCall(step);
  if (call === undefined) return finish([{ text: "All done." }, { finish: "stop" }]);
  return finish([
    { reasoning: `step ${step}: next I call ${call.name}` },
    {
      toolCall: { index: 0, id: `call_${step}`, name: call.name, args: JSON.stringify(call.args) },
    },
    { finish: "tool_calls" },
  ]);
};
for (let i = 0; i < STEPS + 5; i++) server.script({ respond });

await using handle = await agent.composition.service.create({ cwd: agent.cwd });
const compactionMs: number[] = [];
void (async () => {
  let began = 0;
  for await (const event of handle.events()) {
    if (event.type !== "compaction") continue;
    if (event.status === "in_progress") began = performance.now();
    else compactionMs.push(performance.now() - began);
  }
})();
const started = performance.now();
const outcome = await handle.prompt(
  [{ type: "text", text: "Survey this project." }],
  new AbortController().signal,
);
const elapsed = performance.now() - started;
if (outcome.reason !== "end_turn") throw new Error(`the session ended ${outcome.reason}`);

const requests = server.requests.map((request) => ({
  parts: parts(request),
  summary: v.parse(Body, request.body).tool_choice === "none",
}));
/** Per summary request: tokens sent, and the share of them the previous request already sent. */
const summaries = requests.flatMap((request, i) => {
  const before = requests[i - 1];
  if (!request.summary || before === undefined) return [];
  const cached = sharedPrefixBytes(before.parts, request.parts) / total(request.parts);
  return [{ tokens: estimateTokens(request.parts.join("")), cached }];
});
const stable: number[] = [];
const acrossCompaction: number[] = [];
const tokens: number[] = [];
let last: string[] | undefined;
let compactedSince = false;
for (const request of requests) {
  if (request.summary) {
    compactedSince = true;
    continue;
  }
  tokens.push(estimateTokens(request.parts.join("")));
  if (last !== undefined) {
    const share = sharedPrefixBytes(last, request.parts) / total(last);
    (compactedSince ? acrossCompaction : stable).push(share);
  }
  last = request.parts;
  compactedSince = false;
}

const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
const mean = (list: readonly number[]) =>
  list.reduce((a, b) => a + b, 0) / Math.max(1, list.length);
const compactions = handle.history().filter((event) => event.type === "compaction").length;
console.log(
  `${STEPS} steps, ${requests.length} requests (${summaries.length} summary), ${compactions} compaction(s), ${elapsed.toFixed(0)} ms`,
);
console.log(
  `previous request kept as an unchanged prefix: min ${pct(Math.min(...stable))}, mean ${pct(mean(stable))} over ${stable.length} requests outside compactions`,
);
if (acrossCompaction.length > 0)
  console.log(`across a compaction: ${acrossCompaction.map(pct).join(", ")}`);
console.log(
  `each compaction: ${summaries.map((s, i) => `${s.tokens} tokens sent (${pct(s.cached)} a cached prefix), ${(compactionMs[i] ?? 0).toFixed(1)} ms`).join("; ")}`,
);
console.log(
  `tokens sent per step (estimated): mean ${Math.round(mean(tokens))}, max ${Math.max(...tokens)}, last ${tokens.at(-1)}`,
);
const tokensPerStepAdded = tokens
  .slice(1)
  .map((t, i) => t - (tokens[i] ?? 0))
  .filter((d) => d > 0);
console.log(
  `tokens a step adds to the context: mean ${Math.round(mean(tokensPerStepAdded))}, max ${Math.max(...tokensPerStepAdded)}`,
);
const status = handle.status();
console.log(`context at the end: ${status.contextUsed} of ${status.contextWindow} tokens`);
if (server.failures.length > 0) throw new Error(server.failures.join("\n"));
if (stable.some((share) => share < 1)) process.exitCode = 1;
