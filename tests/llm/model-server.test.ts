/** The test model server itself: what it sends, records and refuses, and its JSON-script runner. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  chunks,
  expectAll,
  expectReasoningEcho,
  startModelServer,
  textTurn,
  toolTurn,
} from "../support/model-server.ts";

const post = (url: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${url}/chat/completions`, { method: "POST", body: JSON.stringify(body), signal });

/** The `data:` payloads of an SSE body, parsed (except `[DONE]`). */
function frames(text: string): unknown[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.startsWith("data: "))
    .map((frame) => frame.slice(6))
    .map((data) => (data === "[DONE]" ? data : JSON.parse(data)));
}

describe("model server", () => {
  test.concurrent("deepseek dialect: fixed ids, role on the first delta, reasoning_content, usage with cache fields", async () => {
    await using server = await startModelServer();
    server.script(toolTurn([{ id: "call_1", name: "glob", args: { p: 1 } }], { reasoning: "r" }));
    const text = await (await post(server.url, { model: "deepseek-flash" })).text();
    const head = {
      id: "chatcmpl-mock-0",
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model: "deepseek-flash",
    };
    const choice = (delta: unknown, finish: string | null = null) => ({
      ...head,
      system_fingerprint: "fp_mock",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
    expect(frames(text)).toEqual([
      choice({ role: "assistant", content: null, reasoning_content: "r" }),
      choice({
        tool_calls: [
          { index: 0, id: "call_1", type: "function", function: { name: "glob", arguments: "" } },
        ],
      }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '{"p"' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: ":1}" } }] }),
      choice({}, "tool_calls"),
      {
        ...head,
        choices: [],
        usage: {
          prompt_tokens: 10,
          completion_tokens: 5,
          total_tokens: 15,
          prompt_cache_hit_tokens: 0,
          prompt_cache_miss_tokens: 10,
          prompt_tokens_details: { cached_tokens: 0 },
        },
      },
      "[DONE]",
    ]);
  });

  test.concurrent("an empty queue answers 500 and a failed expectation 400, both recorded as failures", async () => {
    await using server = await startModelServer();
    server.script({
      ...textTurn("x"),
      expect: expectAll(expectReasoningEcho(), () => "mock: second check"),
    });
    const refused = await post(server.url, {
      messages: [{ role: "assistant", content: "", reasoning_content: "" }],
    });
    const unexpected = await post(server.url, {});
    expect([refused.status, await refused.json(), unexpected.status, server.failures]).toEqual([
      400,
      {
        error: {
          message: "mock: second check",
          type: "invalid_request_error",
          param: null,
          code: null,
        },
      },
      500,
      ["request 0: mock: second check", "request 1: mock: unexpected request"],
    ]);
  });

  test.concurrent("GET /models lists the mock model; other routes are 404", async () => {
    await using server = await startModelServer();
    const models = await (await fetch(`${server.url}/v1/models`)).json();
    const missing = await fetch(`${server.url}/nope`);
    expect([models, missing.status]).toEqual([
      { object: "list", data: [{ id: "mock-model", object: "model", owned_by: "mock" }] },
      404,
    ]);
  });

  test.concurrent("until holds the stream back; an abort during the pause is recorded", async () => {
    await using server = await startModelServer();
    const gate = Promise.withResolvers<void>();
    server.script({ respond: { stream: [{ text: "a" }, { until: gate.promise }, { text: "b" }] } });
    const controller = new AbortController();
    const response = await post(server.url, {}, controller.signal);
    const reader = response.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    controller.abort();
    await server.aborted(0);
    expect([first.includes('"content":"a"'), server.requests[0]?.aborted]).toEqual([true, true]);
  });

  test("chunks splits by code point and never halves a surrogate pair", () => {
    expect(chunks("ab🙂cd", 3)).toEqual(["ab🙂", "cd"]);
  });
});

describe("serve-script", () => {
  test("prints one URL line, serves the script, and exits 0 when stdin closes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-serve-script-"));
    try {
      const file = join(dir, "script.json");
      writeFileSync(
        file,
        JSON.stringify([
          {
            expect: { reasoningEcho: true },
            respond: { stream: [{ text: "hi" }, { finish: "stop" }, { done: true }] },
          },
        ]),
      );
      await using child = Bun.spawn(
        ["bun", join(import.meta.dir, "../support/serve-script.ts"), file],
        {
          stdin: "pipe",
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      const reader = child.stdout.getReader();
      let out = "";
      while (!out.includes("\n")) {
        const read = await reader.read();
        if (read.done) break;
        out += new TextDecoder().decode(read.value);
      }
      const { url } = JSON.parse(out) as { url: string };
      const body = await (await post(url, { messages: [] })).text();
      child.stdin.end();
      expect([out, frames(body).length, await child.exited]).toEqual([`{"url":"${url}"}\n`, 3, 0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("an invalid script is refused with the path of the problem", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-serve-script-"));
    try {
      const file = join(dir, "script.json");
      writeFileSync(file, JSON.stringify([{ respond: { stream: [{ txt: "typo" }] } }]));
      const child = Bun.spawnSync(
        ["bun", join(import.meta.dir, "../support/serve-script.ts"), file],
        { stdin: "ignore" },
      );
      expect([
        child.exitCode === 0,
        child.stdout.toString(),
        child.stderr.toString().includes("invalid script at 0.respond.stream.0.txt"),
      ]).toEqual([false, "", true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
