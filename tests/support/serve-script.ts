/**
 * Runs the test model server from a JSON script, for smoke tests and benchmarks:
 *
 *   bun tests/support/serve-script.ts <script.json>
 *
 * The file holds an array of turns (or `{ "turns": [...] }`) in the `ScriptedTurn` shape,
 * without functions or promises; `expect` may be `{ "reasoningEcho": true | [texts] }`.
 * Prints exactly one line, `{"url":"http://127.0.0.1:PORT"}`, then serves until SIGTERM or
 * SIGINT, or until stdin reaches EOF when stdin is a pipe (a /dev/null or terminal stdin is
 * not watched, so a background job does not exit at once). Failures go to stderr.
 */
import { fstatSync, readFileSync } from "node:fs";
import * as v from "valibot";
import { expectReasoningEcho, startModelServer, type ScriptedTurn } from "./model-server.ts";

const Finish = v.nullable(
  v.picklist(["stop", "length", "tool_calls", "content_filter", "insufficient_system_resource"]),
);

const Event = v.union([
  v.strictObject({ reasoning: v.string() }),
  v.strictObject({ text: v.string() }),
  v.strictObject({
    toolCall: v.strictObject({
      index: v.number(),
      id: v.optional(v.string()),
      name: v.optional(v.string()),
      args: v.optional(v.string()),
    }),
  }),
  v.strictObject({ finish: Finish }),
  v.strictObject({
    usage: v.strictObject({
      prompt: v.number(),
      completion: v.number(),
      cacheHit: v.optional(v.number()),
      reasoning: v.optional(v.number()),
    }),
  }),
  v.strictObject({ comment: v.string() }),
  v.strictObject({ raw: v.string() }),
  v.strictObject({ error: v.strictObject({ message: v.string(), type: v.optional(v.string()) }) }),
  v.strictObject({ delayMs: v.number() }),
  v.strictObject({ disconnect: v.union([v.literal(true), v.literal("reset")]) }),
  v.strictObject({ done: v.literal(true) }),
]);

const Respond = v.union([
  v.strictObject({
    status: v.number(),
    headers: v.optional(v.record(v.string(), v.string())),
    json: v.optional(v.unknown()),
  }),
  v.strictObject({
    stream: v.array(Event),
    dialect: v.optional(v.picklist(["deepseek", "ollama", "vllm", "llamacpp"])),
  }),
  v.strictObject({ hang: v.literal(true) }),
]);

const Turn = v.strictObject({
  expect: v.optional(
    v.strictObject({ reasoningEcho: v.union([v.literal(true), v.array(v.string())]) }),
  ),
  respond: Respond,
});

/** The JSON script accepted by this runner: the turns, bare or under `turns`. */
export const ScriptFile = v.array(Turn);

function loadTurns(file: string): ScriptedTurn[] {
  const json: unknown = JSON.parse(readFileSync(file, "utf8"));
  const wrapped = v.safeParse(v.looseObject({ turns: v.unknown() }), json);
  const parsed = v.safeParse(ScriptFile, wrapped.success ? wrapped.output.turns : json);
  if (!parsed.success) {
    const { path, message } = deepest(parsed.issues[0]);
    throw new Error(`${file}: invalid script at ${path.join(".") || "(root)"}: ${message}`);
  }
  return parsed.output.map(({ expect, respond }) => {
    if (expect === undefined) return { respond };
    const texts = expect.reasoningEcho === true ? undefined : expect.reasoningEcho;
    return { respond, expect: expectReasoningEcho(texts) };
  });
}

/**
 * A union's own issue says little; the sub-issue that got furthest names the real problem.
 * Sub-issue paths are relative to the union, so the path is rebuilt on the way down.
 */
function deepest(
  issue: v.GenericIssue,
  prefix: string[] = [],
): { path: string[]; message: string } {
  const path = [...prefix, ...(issue.path ?? []).map((item) => String(item.key))];
  let best = { path, message: issue.message };
  for (const sub of issue.issues ?? []) {
    const candidate = deepest(sub, path);
    const longer = candidate.path.length > best.path.length;
    // On a tie an unknown key (a typo in a strict object) explains more than a missing one.
    const typo =
      candidate.path.length === best.path.length && candidate.message.includes("Expected never");
    if (longer || typo) best = candidate;
  }
  return { path: best.path, message: best.message };
}

async function main(): Promise<void> {
  const file = process.argv[2];
  if (file === undefined) {
    process.stderr.write("usage: bun tests/support/serve-script.ts <script.json>\n");
    process.exit(2);
  }
  let turns: ScriptedTurn[];
  try {
    turns = loadTurns(file);
  } catch (error) {
    process.stderr.write(
      `serve-script: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(2);
  }
  const server = await startModelServer();
  server.script(...turns);
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

  const stop = Promise.withResolvers<string>();
  process.on("SIGTERM", () => stop.resolve("SIGTERM"));
  process.on("SIGINT", () => stop.resolve("SIGINT"));
  const stdin = fstatSync(0);
  if (stdin.isFIFO() || stdin.isSocket()) {
    void (async () => {
      for await (const _ of Bun.stdin.stream()) {
        // Input is ignored; only its end matters.
      }
      stop.resolve("stdin closed");
    })();
  }
  await stop.promise;
  for (const failure of server.failures) process.stderr.write(`serve-script: ${failure}\n`);
  if (server.pending() > 0)
    process.stderr.write(`serve-script: ${server.pending()} turn(s) unused\n`);
  await server[Symbol.asyncDispose]();
  process.exit(server.failures.length > 0 ? 1 : 0);
}

await main();
