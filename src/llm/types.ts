/**
 * Contracts of the model client: OpenAI-compatible Chat Completions, streamed. The agent loop
 * sees only these shapes; HTTP and SSE knowledge stays inside `src/llm`.
 */
import { DshError } from "../errors.ts";
import type { Effort, ReasoningEcho, Thinking } from "../settings/table.ts";
import type { ModelPrices } from "./prices.ts";

/** A tool call as the model made it; `arguments` is its raw JSON text. */
export interface ChatToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** A piece of a user message that is more than text: an image for a vision model. */
export type ChatContentPart =
  | { readonly type: "text"; readonly text: string }
  /** `data` is base64; it is sent as a `data:` URL. */
  | { readonly type: "image"; readonly mimeType: string; readonly data: string };

export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  /** Plain text, or parts when the message holds an image. */
  | { readonly role: "user"; readonly content: string | readonly ChatContentPart[] }
  | {
      readonly role: "assistant";
      readonly content: string;
      /** Exact accumulated reasoning, "" when none; echoed per the model's `reasoningEcho`. */
      readonly reasoning: string;
      readonly toolCalls: readonly ChatToolCall[];
    }
  | { readonly role: "tool"; readonly toolCallId: string; readonly content: string };

export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: Record<string, unknown>;
}

export type { Effort } from "../settings/table.ts";

/** How a model is reached and which wire dialect it speaks. Data, never code constants. */
export interface ModelInfo {
  readonly id: string;
  readonly name: string;
  /** Base URL override; the connection default is used when absent. */
  readonly baseUrl?: string;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  /** How reasoning is switched: DeepSeek's `thinking` object, `reasoning_effort`, or not at all. */
  readonly thinking: Thinking;
  /** Which field carries reasoning back in assistant messages. */
  readonly reasoningEcho: ReasoningEcho;
  /** Whether to send `stream_options.include_usage`. */
  readonly streamUsage: boolean;
  /** Whether the model reads images in prompts. */
  readonly vision: boolean;
  /** What its tokens cost; absent when unknown (its usage then costs 0). */
  readonly prices?: ModelPrices;
}

export interface ChatRequest {
  readonly model: ModelInfo;
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolDefinition[];
  readonly effort?: Effort;
  /**
   * `none` offers the tools without letting the model call them (the prompt stays identical
   * for the provider's cache); `auto` when absent.
   */
  readonly toolChoice?: "auto" | "none";
  /** A model of the catalog that sees images, named in the note that replaces an image. */
  readonly visionModel?: string;
}

export interface Usage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Prompt tokens served from the provider's prefix cache, when it says. */
  readonly cachedTokens?: number;
  /** Prompt tokens not served from the cache, when the provider says (DeepSeek does). */
  readonly cacheMissTokens?: number;
  readonly reasoningTokens?: number;
}

/** Normalised `finish_reason`; `unspecified` when the server ended with `[DONE]` and none. */
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "unspecified";

/**
 * One step's stream. A stream never throws once iteration has started: failure arrives as a
 * final `error` event, cancellation (the signal) as a final `error` with code `aborted`.
 */
export type LlmEvent =
  | { readonly type: "reasoning_delta"; readonly text: string }
  | { readonly type: "text_delta"; readonly text: string }
  | {
      readonly type: "tool_call_start";
      readonly index: number;
      readonly id: string;
      readonly name: string;
    }
  | { readonly type: "tool_call_delta"; readonly index: number; readonly fragment: string }
  | { readonly type: "usage"; readonly usage: Usage }
  /** Tool calls are complete (assembled by index) only here, at the end of the step. */
  | {
      readonly type: "finish";
      readonly reason: FinishReason;
      readonly toolCalls: readonly ChatToolCall[];
    }
  | { readonly type: "error"; readonly error: LlmError }
  /** For the user while the step waits (a stall, a retry); not part of the answer. */
  | {
      readonly type: "notice";
      readonly severity: "info" | "warning";
      readonly title: string;
      readonly description?: string;
    };

export type LlmErrorCode =
  | "missing_api_key"
  | "auth"
  | "insufficient_balance"
  | "bad_request"
  /** The base URL answered with a web page: something is there, but not the API. */
  | "not_an_api"
  /** The prompt does not fit the model's context window. */
  | "context_length"
  | "rate_limit"
  | "overloaded"
  | "server"
  | "network"
  | "protocol"
  | "premature_eof"
  | "aborted";

export class LlmError extends DshError<LlmErrorCode> {
  readonly status?: number;
  constructor(
    code: LlmErrorCode,
    message: string,
    options: { status?: number; cause?: unknown; data?: Record<string, unknown> } = {},
  ) {
    super(code, message, { cause: options.cause, data: options.data });
    this.status = options.status;
  }
}

export interface ModelClient {
  /** Streams one model step. Retries (429/500/502/503/504, network) happen inside, only before anything was streamed. */
  stream(request: ChatRequest, signal: AbortSignal): AsyncIterable<LlmEvent>;
  /**
   * A client for one conversation (a session's requests, one after another): the same endpoint
   * and key, with a request writer of its own, so each request reuses what the conversation's
   * previous one wrote, whatever other conversations send meanwhile.
   */
  conversation(): ModelClient;
}
