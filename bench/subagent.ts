/**
 * What a subagent costs to start, and what of it the provider's prefix cache can serve. One
 * session runs two `explore` tasks one after the other against the test model server, each
 * child reading one file and answering. Figures: the time from the task call starting (its
 * `tool_start`) to the child's first model request arriving, and the share of the second
 * task's first request (tools and messages, as serialized) that repeats the first task's first
 * request unchanged from its start, what a prompt cache keyed on the prefix can serve.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { createTestAgent } from "../tests/support/agent.ts";
import {
  type RecordedRequest,
  startModelServer,
  textTurn,
  toolTurn,
} from "../tests/support/model-server.ts";
import { emit, size } from "./lib/figures.ts";
import { median, report } from "./stats.ts";

const RUNS = size(20, 2);

const Body = v.looseObject({
  messages: v.array(v.unknown()),
  tools: v.optional(v.array(v.unknown())),
});

/** A request as the parts a prefix cache sees in order: the tool list, then each message. */
function parts(request: RecordedRequest): string[] {
  const body = v.parse(Body, request.body);
  return [JSON.stringify(body.tools ?? []), ...body.messages.map((m) => JSON.stringify(m))];
}

/** Bytes of `next` that repeat `previous` from the start (whole parts, then the common start of the first that differs). */
function sharedPrefixBytes(previous: readonly string[], next: readonly string[]): number {
  let bytes = 0;
  for (const [i, part] of next.entries()) {
    const before = previous[i];
    if (before === part) {
      bytes += part.length;
      continue;
    }
    let k = 0;
    while (before !== undefined && k < part.length && part[k] === before[k]) k++;
    return bytes + k;
  }
  return bytes;
}

const total = (list: readonly string[]) => list.reduce((sum, part) => sum + part.length, 0);

await using server = await startModelServer();
await using agent = createTestAgent({ baseUrl: server.url });
writeFileSync(join(agent.cwd, "notes.md"), "# Notes\n\nThe build runs with `bun run build`.\n");

const startMs: number[] = [];
const shares: number[] = [];
for (let run = 0; run < RUNS; run++) {
  await using handle = await agent.composition.service.create({ cwd: agent.cwd });
  const started = new Map<string, number>();
  void (async () => {
    for await (const event of handle.events()) {
      if (event.type === "tool_start" && event.callId.startsWith("task")) {
        started.set(event.callId, performance.now());
      }
    }
  })();
  const before = server.requests.length;
  const task = (id: string, prompt: string) =>
    toolTurn([{ id, name: "task", args: { description: id, prompt } }]);
  server.script(
    task("task-a", "How is the project built? Read notes.md."),
    toolTurn([{ id: "r1", name: "read_file", args: { path: "notes.md" } }]),
    textTurn("With bun run build."),
    task("task-b", "What does notes.md say first?"),
    toolTurn([{ id: "r2", name: "read_file", args: { path: "notes.md" } }]),
    textTurn("It starts with a Notes heading."),
    textTurn("Done."),
  );
  const outcome = await handle.prompt(
    [{ type: "text", text: "Ask two subagents." }],
    new AbortController().signal,
  );
  if (outcome.reason !== "end_turn") throw new Error(`the session ended ${outcome.reason}`);
  const requests = server.requests.slice(before);
  const [firstA, firstB] = [requests[1], requests[4]];
  if (firstA === undefined || firstB === undefined) throw new Error("a child never asked");
  for (const [id, request] of [
    ["task-a", firstA],
    ["task-b", firstB],
  ] as const) {
    const at = started.get(id);
    if (at !== undefined) startMs.push(request.bodyReadAt - at);
  }
  const b = parts(firstB);
  shares.push(sharedPrefixBytes(parts(firstA), b) / total(b));
}
if (server.failures.length > 0) throw new Error(server.failures.join("\n"));

report("task call to the child's first request", startMs);
console.log(
  `second explore task's first request repeating the first's from its start: median ${(median(shares) * 100).toFixed(1)}% (n=${shares.length})`,
);
emit([
  {
    name: "subagent start (task call → first request)",
    unit: "ms",
    samples: startMs,
    target: { op: "<=", value: 20 },
  },
  {
    name: "second explore task: share of its first request the cache holds",
    unit: "%",
    samples: shares.map((share) => share * 100),
    target: { op: ">=", value: 90 },
  },
]);
