/**
 * Valibot schemas of what OpenAI-compatible servers send: stream chunks, usage objects and
 * error bodies. Loose on purpose: unknown fields are kept out of the way, and every field
 * a server may leave out or send as null is optional and nullable.
 */
import * as v from "valibot";
import type { Usage } from "./types.ts";

const OptionalString = v.optional(v.nullable(v.string()));
const OptionalNumber = v.optional(v.nullable(v.number()));

export const WireToolCallDelta = v.looseObject({
  index: OptionalNumber,
  id: OptionalString,
  type: OptionalString,
  function: v.optional(
    v.nullable(v.looseObject({ name: OptionalString, arguments: OptionalString })),
  ),
});
export type WireToolCallDelta = v.InferOutput<typeof WireToolCallDelta>;

export const WireDelta = v.looseObject({
  role: OptionalString,
  content: OptionalString,
  reasoning_content: OptionalString,
  reasoning: OptionalString,
  tool_calls: v.optional(v.nullable(v.array(WireToolCallDelta))),
});

export const WireUsage = v.looseObject({
  prompt_tokens: OptionalNumber,
  completion_tokens: OptionalNumber,
  prompt_cache_hit_tokens: OptionalNumber,
  prompt_cache_miss_tokens: OptionalNumber,
  prompt_tokens_details: v.optional(v.nullable(v.looseObject({ cached_tokens: OptionalNumber }))),
  completion_tokens_details: v.optional(
    v.nullable(v.looseObject({ reasoning_tokens: OptionalNumber })),
  ),
});
export type WireUsage = v.InferOutput<typeof WireUsage>;

export const WireChunk = v.looseObject({
  choices: v.optional(
    v.nullable(
      v.array(
        v.looseObject({
          index: OptionalNumber,
          delta: v.optional(v.nullable(WireDelta)),
          finish_reason: OptionalString,
        }),
      ),
    ),
  ),
  usage: v.optional(v.nullable(WireUsage)),
});
export type WireChunk = v.InferOutput<typeof WireChunk>;

/** The error object of OpenAI-shaped bodies; Ollama sends a bare string instead. */
const WireErrorObject = v.looseObject({
  message: OptionalString,
  type: OptionalString,
  code: v.optional(v.nullable(v.union([v.string(), v.number()]))),
});

const ErrorEnvelope = v.looseObject({ error: v.union([WireErrorObject, v.string()]) });
// vLLM and FastAPI-style servers put the message at the top level.
const FlatError = v.looseObject({ message: v.string(), type: OptionalString });
const DetailError = v.looseObject({ detail: v.string() });

/** A server's own explanation of a failure, from any of the shapes above. */
export interface ServerError {
  readonly message: string;
  readonly type?: string;
  readonly code?: string;
}

/** Reads a server error out of a parsed body; `undefined` when it is none of the known shapes. */
export function readServerError(body: unknown): ServerError | undefined {
  const envelope = v.safeParse(ErrorEnvelope, body);
  if (envelope.success) {
    const error = envelope.output.error;
    if (typeof error === "string") return { message: error };
    return {
      message: error.message ?? "unknown error",
      ...(error.type == null ? {} : { type: error.type }),
      ...(error.code == null ? {} : { code: String(error.code) }),
    };
  }
  const flat = v.safeParse(FlatError, body);
  if (flat.success)
    return {
      message: flat.output.message,
      ...(flat.output.type == null ? {} : { type: flat.output.type }),
    };
  const detail = v.safeParse(DetailError, body);
  return detail.success ? { message: detail.output.detail } : undefined;
}

/** Normalises a usage object; cache hits come from either DeepSeek's or OpenAI's field. */
export function toUsage(usage: WireUsage): Usage {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens;
  const missed = usage.prompt_cache_miss_tokens;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  return {
    promptTokens: usage.prompt_tokens ?? 0,
    completionTokens: usage.completion_tokens ?? 0,
    ...(cached == null ? {} : { cachedTokens: cached }),
    ...(missed == null ? {} : { cacheMissTokens: missed }),
    ...(reasoning == null ? {} : { reasoningTokens: reasoning }),
  };
}
