/**
 * Compaction through the compiled `dsh exec`, with a small `context_window` from the config
 * file: automatic before the request that would pass `compact_at`, kept across restarts, and
 * one compaction plus one retry after a context-length refusal. The last stderr line shows
 * context and cost.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { type CliRig, startCliRig } from "../support/cli.ts";
import type { RecordedRequest, ScriptedTurn } from "../support/model-server.ts";

const CONFIG = `
compact_at = 0.8
[[models]]
id = "deepseek-flash"
context_window = 10000
prices = { cache_hit = 1, cache_miss = 2, output = 4 }
`;

const TOO_LONG: ScriptedTurn = {
  respond: {
    status: 400,
    json: {
      error: {
        message:
          "This model's maximum context length is 10000 tokens. However, you requested 12000 tokens. Please reduce the length of the messages or completion.",
        type: "invalid_request_error",
        param: null,
        code: null,
      },
    },
  },
};

/** About 3,000 estimated tokens: more than a compaction keeps verbatim here. */
const LONG_ANSWER = "Task one is finished and verified. ".repeat(340);

function answer(text: string, usage: { prompt: number; completion: number }): ScriptedTurn {
  return { respond: { stream: [{ text }, { finish: "stop" }, { usage }, { done: true }] } };
}

const Messages = v.array(v.looseObject({ role: v.string(), content: v.optional(v.string()) }));
const messagesOf = (request: RecordedRequest | undefined) =>
  v.parse(Messages, request?.body.messages);
const sessionId = (stderr: string) => /session ([0-9a-f-]{36})/.exec(stderr)?.[1] ?? "";
const lastLine = (text: string) => text.trimEnd().split("\n").at(-1);

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-compaction");
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

describe("dsh exec with a small context window", () => {
  test("compacts before the request that would pass compact_at, stays compacted after restarts, and replays everything", async () => {
    const project = rig.project("auto", CONFIG);
    const start = rig.server.requests.length;
    rig.server.script(answer(LONG_ANSWER, { prompt: 8500, completion: 100 }));
    const first = await rig.run(["exec", "task one"], project);
    expect(first.code).toBe(0);
    const id = sessionId(first.stderr);
    // 8,500 prompt tokens × 2 + 100 output tokens × 4, per million.
    expect(lastLine(first.stderr)).toBe(
      `session ${id} · context 8,600 / 10,000 tokens (86%) · $0.0174`,
    );

    rig.server.script(
      answer("SUMMARY: task one is finished.", { prompt: 8600, completion: 20 }),
      answer("task two done", { prompt: 900, completion: 10 }),
    );
    const second = await rig.run(["exec", "--resume", id, "task two"], project);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("task two done\n");
    expect(second.stderr).toContain("context compacted");
    const [summaryRequest, afterSummary] = rig.server.requests.slice(start + 1);
    expect(summaryRequest?.body).toMatchObject({
      tool_choice: "none",
      thinking: { type: "disabled" },
    });
    expect(messagesOf(afterSummary).map((m) => m.role)).toEqual(["system", "user"]);
    expect(messagesOf(afterSummary)[1]?.content).toContain("SUMMARY: task one is finished.");
    expect(messagesOf(afterSummary)[1]?.content?.endsWith("task two")).toBe(true);
    expect(JSON.stringify(afterSummary?.body).length).toBeLessThan(
      JSON.stringify(summaryRequest?.body).length,
    );
    // Plus the summary (8,600 × 2 + 20 × 4) and the answer (900 × 2 + 10 × 4).
    expect(lastLine(second.stderr)).toBe(
      `session ${id} · context 910 / 10,000 tokens (9%) · $0.0365`,
    );

    rig.server.script(answer("task three done", { prompt: 950, completion: 10 }));
    const third = await rig.run(["exec", "--resume", id, "task three"], project);
    expect(third.code).toBe(0);
    const resumed = messagesOf(rig.server.requests.at(-1));
    expect(resumed.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(resumed[1]?.content).toContain("SUMMARY: task one is finished.");
    expect(JSON.stringify(resumed)).not.toContain("Task one is finished and verified.");

    // Nothing was deleted: every message is still in the log, with the compaction among them.
    const log = readFileSync(join(project.home, "sessions", `${id}.jsonl`), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(
      log.flatMap((event) =>
        event.type === "user_message"
          ? [event.content[0].text]
          : event.type === "assistant_text"
            ? [event.text.slice(0, 10)]
            : event.type === "compaction"
              ? ["(compaction)"]
              : [],
      ),
    ).toEqual([
      "task one",
      "Task one i",
      "task two",
      "(compaction)",
      "task two d",
      "task three",
      "task three",
    ]);
  });

  test("a context-length refusal compacts and retries once; a second refusal ends the run with a clear error", async () => {
    const project = rig.project("overflow", CONFIG);
    rig.server.script(answer(LONG_ANSWER, { prompt: 3000, completion: 100 }));
    const first = await rig.run(["exec", "task one"], project);
    const id = sessionId(first.stderr);

    rig.server.script(
      TOO_LONG,
      answer("SUMMARY: one.", { prompt: 3000, completion: 10 }),
      answer("two done", { prompt: 200, completion: 5 }),
    );
    const second = await rig.run(["exec", "--resume", id, "task two"], project);
    expect([second.code, second.stdout]).toEqual([0, "two done\n"]);

    rig.server.script(
      TOO_LONG,
      answer("SUMMARY: one and two.", { prompt: 300, completion: 10 }),
      TOO_LONG,
    );
    const requests = rig.server.requests.length;
    const third = await rig.run(["exec", "--resume", id, "task three"], project);
    expect(third.code).toBe(1);
    expect(rig.server.requests.length).toBe(requests + 3);
    expect(third.stderr).toContain(
      "the conversation is too long for the model's context window (HTTP 400)",
    );
    expect(third.stderr).toContain("it was compacted already");
  });
});
