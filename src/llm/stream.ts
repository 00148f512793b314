/**
 * Turns the SSE messages of one model step into `LlmEvent`s. Knows the quirks of
 * OpenAI-compatible servers (llm.md §2): reasoning under `reasoning_content` or `reasoning`,
 * tool calls assembled by index with missing indexes, missing ids and reused indexes,
 * usage on any chunk, error envelopes inside a 200 stream, `[DONE]` with no finish reason,
 * and a stream that simply stops.
 */
import * as v from "valibot";
import type { SseMessage } from "./sse.ts";
import { saysContextLength } from "./http-errors.ts";
import {
  type ChatToolCall,
  type FinishReason,
  LlmError,
  type LlmErrorCode,
  type LlmEvent,
  type Usage,
} from "./types.ts";
import {
  readServerError,
  type ServerError,
  toUsage,
  WireChunk,
  type WireToolCallDelta,
} from "./wire.ts";

export interface StepNormaliser {
  /** Events for one message; `ended` once the step is over (`[DONE]` or an error). */
  push(message: SseMessage): { readonly events: LlmEvent[]; readonly ended: boolean };
  /** The body ended: the final `usage` + `finish`, or `premature_eof` when no finish was seen. */
  close(): LlmEvent[];
}

interface PendingCall {
  readonly index: number;
  readonly wireId: string | undefined;
  readonly id: string;
  name: string;
  args: string;
  started: boolean;
}

/**
 * @param callIdPrefix gives the prefix of ids made for calls the server sent without one
 *   (`<prefix>_<index>`); it must differ between steps of a session. Asked at most once, and
 *   only when such a call comes.
 */
export function createStepNormaliser(callIdPrefix: () => string): StepNormaliser {
  let prefix: string | undefined;
  const calls: PendingCall[] = [];
  const byWireIndex = new Map<number, PendingCall>();
  let finishReason: string | undefined;
  let usage: Usage | undefined;

  const fail = (code: LlmErrorCode, message: string, data?: Record<string, unknown>) => ({
    events: [{ type: "error", error: new LlmError(code, message, { data }) } satisfies LlmEvent],
    ended: true,
  });

  const acceptToolCall = (delta: WireToolCallDelta, position: number, out: LlmEvent[]) => {
    const wireIndex = delta.index ?? position;
    const wireId = delta.id || undefined;
    let call = byWireIndex.get(wireIndex);
    // Old Ollama sent index 0 for every call: a different id at a known index is a new call.
    if (
      call === undefined ||
      (wireId !== undefined && call.wireId !== undefined && wireId !== call.wireId)
    ) {
      const index = calls.length;
      call = {
        index,
        wireId,
        id: wireId ?? `${(prefix ??= callIdPrefix())}_${index}`,
        name: "",
        args: "",
        started: false,
      };
      calls.push(call);
      byWireIndex.set(wireIndex, call);
    }
    const name = delta.function?.name;
    if (name && call.name === "") call.name = name;
    const fragment = delta.function?.arguments ?? "";
    if (!call.started && call.name !== "") {
      call.started = true;
      out.push({ type: "tool_call_start", index: call.index, id: call.id, name: call.name });
      if (call.args !== "")
        out.push({ type: "tool_call_delta", index: call.index, fragment: call.args });
    }
    call.args += fragment;
    if (call.started && fragment !== "")
      out.push({ type: "tool_call_delta", index: call.index, fragment });
  };

  const finalEvents = (): LlmEvent[] => {
    const out: LlmEvent[] = [];
    const truncated = finishReason === "length";
    const finished: ChatToolCall[] = [];
    for (const call of calls) {
      const args = call.args.trim() === "" ? "{}" : call.args;
      // A call cut off by the token limit is unusable; keep only complete ones.
      if (truncated && (call.name === "" || !isJson(args))) continue;
      if (!call.started)
        out.push({ type: "tool_call_start", index: call.index, id: call.id, name: call.name });
      finished.push({ id: call.id, name: call.name, arguments: args });
    }
    if (usage !== undefined) out.push({ type: "usage", usage });
    out.push({
      type: "finish",
      reason: toFinishReason(finishReason, finished.length > 0),
      toolCalls: finished,
    });
    return out;
  };

  return {
    push(message) {
      if (message.event === "error") {
        const error = readServerError(parseJson(message.data)) ?? {
          message: message.data || "stream error",
        };
        return fail(classify(error), `the model server reported an error: ${error.message}`);
      }
      const data = message.data.trim();
      if (data === "[DONE]") return { events: finalEvents(), ended: true };
      const json = parseJson(data);
      if (json === undefined)
        return fail("protocol", `the model server sent a chunk that is not JSON: ${clip(data)}`);
      const envelope =
        typeof json === "object" && json !== null && "error" in json
          ? readServerError(json)
          : undefined;
      if (envelope !== undefined) {
        return fail(classify(envelope), `the model server reported an error: ${envelope.message}`);
      }
      const chunk = v.safeParse(WireChunk, json);
      if (!chunk.success) {
        const path = v.getDotPath(chunk.issues[0]) ?? "(root)";
        return fail(
          "protocol",
          `the model server sent a malformed chunk (at ${path}): ${clip(data)}`,
        );
      }
      if (chunk.output.usage) usage = toUsage(chunk.output.usage);
      const events: LlmEvent[] = [];
      const choice = chunk.output.choices?.find((c) => (c.index ?? 0) === 0);
      const delta = choice?.delta;
      if (delta) {
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (reasoning) events.push({ type: "reasoning_delta", text: reasoning });
        if (delta.content) events.push({ type: "text_delta", text: delta.content });
        delta.tool_calls?.forEach((call, position) => {
          acceptToolCall(call, position, events);
        });
      }
      const reason = choice?.finish_reason;
      if (reason === "insufficient_system_resource") {
        const message = "the model server ran out of resources (insufficient_system_resource)";
        return { events: [...events, ...fail("server", message).events], ended: true };
      }
      if (reason) finishReason = reason;
      return { events, ended: false };
    },
    close() {
      if (finishReason !== undefined) return finalEvents();
      return fail(
        "premature_eof",
        "the model stream ended prematurely (no finish reason, no [DONE])",
      ).events;
    },
  };
}

function toFinishReason(raw: string | undefined, hasCalls: boolean): FinishReason {
  const reason: FinishReason =
    raw === "stop" || raw === "length" || raw === "tool_calls" || raw === "content_filter"
      ? raw
      : raw === "function_call"
        ? "tool_calls"
        : "unspecified";
  // The step is a tool step when calls were assembled, whatever the server called it.
  return hasCalls && (reason === "stop" || reason === "unspecified") ? "tool_calls" : reason;
}

/** Maps an error envelope found inside a stream to a code, from its type or code. */
function classify(error: ServerError): LlmErrorCode {
  if (saysContextLength(error)) return "context_length";
  const tag = `${error.type ?? ""} ${error.code ?? ""}`.toLowerCase();
  if (tag.includes("rate_limit") || tag.includes("429")) return "rate_limit";
  if (tag.includes("overloaded") || tag.includes("503")) return "overloaded";
  if (tag.includes("balance") || tag.includes("quota") || tag.includes("402"))
    return "insufficient_balance";
  if (tag.includes("auth") || tag.includes("401")) return "auth";
  if (tag.includes("invalid_request") || tag.includes("400")) return "bad_request";
  return "server";
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isJson(text: string): boolean {
  return parseJson(text) !== undefined;
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
