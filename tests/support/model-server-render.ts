/**
 * How the test model server turns scripted events into SSE bytes, per server dialect
 * (llm.md §4): DeepSeek's `reasoning_content` and cache-hit usage, Ollama's `reasoning` beside
 * `content: ""`, vLLM's usage chunk with `choices: null`, llama.cpp's usage on a choice chunk.
 */
import type { Dialect, StreamEvent } from "./model-server.ts";

const CREATED = 1_700_000_000;
const encoder = new TextEncoder();

/** The events that turn into bytes; the others steer the stream. */
export type Renderable = Exclude<
  StreamEvent,
  { until: unknown } | { delayMs: number } | { disconnect: unknown }
>;

/** Renders events as the given server would; the first delta carries the assistant role. */
export function createRenderer(dialect: Dialect, model: string, n: number) {
  let roleSent = false;
  const frame = (value: unknown) => encoder.encode(`data: ${JSON.stringify(value)}\n\n`);
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: object = {}) => {
    const withRole = roleSent ? delta : { role: "assistant", ...delta };
    roleSent = true;
    return frame({
      id: `chatcmpl-mock-${n}`,
      object: "chat.completion.chunk",
      created: CREATED,
      model,
      system_fingerprint: "fp_mock",
      choices: [{ index: 0, delta: withRole, logprobs: null, finish_reason: finish }],
      ...extra,
    });
  };
  const bare = (choices: unknown, usage: unknown) =>
    frame({
      id: `chatcmpl-mock-${n}`,
      object: "chat.completion.chunk",
      created: CREATED,
      model,
      choices,
      usage,
    });

  return (event: Renderable): Uint8Array => {
    if ("reasoning" in event) {
      if (dialect === "ollama") return chunk({ content: "", reasoning: event.reasoning }, null);
      if (dialect === "vllm") return chunk({ reasoning: event.reasoning }, null);
      return chunk({ content: null, reasoning_content: event.reasoning }, null);
    }
    if ("text" in event) return chunk({ content: event.text }, null);
    if ("toolCall" in event) {
      const { index, id, name, args } = event.toolCall;
      const fn = {
        ...(name === undefined ? {} : { name }),
        ...(args === undefined ? {} : { arguments: args }),
      };
      const call = { index, ...(id === undefined ? {} : { id, type: "function" }), function: fn };
      return chunk({ tool_calls: [call] }, null);
    }
    if ("finish" in event) return chunk({}, event.finish);
    if ("usage" in event) {
      const usage = renderUsage(dialect, event.usage);
      if (dialect === "vllm") return bare(null, usage);
      if (dialect === "llamacpp")
        return chunk({}, null, { usage, timings: { predicted_n: event.usage.completion } });
      return bare([], usage);
    }
    if ("comment" in event) return encoder.encode(`: ${event.comment}\n\n`);
    if ("raw" in event)
      return typeof event.raw === "string" ? encoder.encode(event.raw) : event.raw;
    if ("error" in event) return frame({ error: { type: "server_error", ...event.error } });
    return encoder.encode("data: [DONE]\n\n");
  };
}

function renderUsage(
  dialect: Dialect,
  usage: { prompt: number; completion: number; cacheHit?: number; reasoning?: number },
) {
  const base = {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.prompt + usage.completion,
  };
  const reasoning =
    usage.reasoning === undefined
      ? {}
      : { completion_tokens_details: { reasoning_tokens: usage.reasoning } };
  if (dialect === "deepseek") {
    const hit = usage.cacheHit ?? 0;
    return {
      ...base,
      prompt_cache_hit_tokens: hit,
      prompt_cache_miss_tokens: usage.prompt - hit,
      prompt_tokens_details: { cached_tokens: hit },
      ...reasoning,
    };
  }
  const cached =
    usage.cacheHit === undefined
      ? {}
      : { prompt_tokens_details: { cached_tokens: usage.cacheHit } };
  return { ...base, ...cached, ...reasoning };
}
