/**
 * `dsh exec --json`: one JSON object per line on stdout for every event of the run, each with a
 * `type`. The shapes are the schemas below; the `tests/cli` suite parses every line with them.
 */
import * as v from "valibot";
import type { LiveEvent } from "../agent/types.ts";
import { ToolKind, toolKindOf } from "../render/intent.ts";

const Text = v.object({ type: v.literal("text"), text: v.string() });
const Reasoning = v.object({ type: v.literal("reasoning"), text: v.string() });

/** Every line `dsh exec --json` writes. */
export const ExecJsonEvent = v.variant("type", [
  /** First line: the session the run is in (give its id to `--resume`). */
  v.object({
    type: v.literal("session"),
    id: v.string(),
    cwd: v.string(),
    model: v.string(),
  }),
  Reasoning,
  Text,
  v.object({
    type: v.literal("tool_call"),
    id: v.string(),
    name: v.string(),
    title: v.string(),
    /** What the call does, as editors show it (`read`, `edit`, `execute`, `search`, `fetch`, ...). */
    kind: v.optional(ToolKind),
    input: v.unknown(),
  }),
  v.object({ type: v.literal("tool_output"), id: v.string(), text: v.string() }),
  v.object({
    type: v.literal("tool_result"),
    id: v.string(),
    is_error: v.boolean(),
    output: v.string(),
    /** The result in a few words, where the tool says one ("5 results", a page's title and size). */
    summary: v.optional(v.string()),
  }),
  v.object({
    type: v.literal("usage"),
    input_tokens: v.number(),
    cached_tokens: v.number(),
    output_tokens: v.number(),
    context_window: v.number(),
  }),
  v.object({
    type: v.literal("notice"),
    severity: v.picklist(["info", "warning", "error"]),
    title: v.string(),
    description: v.optional(v.string()),
  }),
  v.object({
    type: v.literal("compaction"),
    status: v.picklist(["in_progress", "completed", "failed", "cancelled"]),
    summary: v.optional(v.string()),
    error: v.optional(v.string()),
  }),
  v.object({
    type: v.literal("turn_end"),
    reason: v.string(),
    error: v.optional(v.object({ code: v.string(), message: v.string() })),
  }),
  /** A failure outside the turn (the session could not open, the prompt was empty). */
  v.object({ type: v.literal("error"), message: v.string() }),
]);
export type ExecJsonEvent = v.InferOutput<typeof ExecJsonEvent>;

/** The JSON line(s) of one live event; `turn_start` has none (the prompt is the caller's). */
export function jsonEventsOf(event: LiveEvent): ExecJsonEvent[] {
  switch (event.type) {
    case "turn_start":
    case "tool_start":
      return [];
    case "reasoning_delta":
      return [{ type: "reasoning", text: event.text }];
    case "text_delta":
      return [{ type: "text", text: event.text }];
    case "tool_call":
      return [
        {
          type: "tool_call",
          id: event.callId,
          name: event.name,
          title: event.intent.title,
          kind: toolKindOf(event.intent),
          input: event.rawInput,
        },
      ];
    case "tool_progress":
      return [{ type: "tool_output", id: event.callId, text: event.chunk }];
    case "tool_result":
      return [
        {
          type: "tool_result",
          id: event.callId,
          is_error: event.isError,
          output: event.output,
          ...(event.intent.type === "generic" && event.intent.summary !== undefined
            ? { summary: event.intent.summary }
            : {}),
        },
      ];
    case "usage":
      return [
        {
          type: "usage",
          input_tokens: event.usage.promptTokens,
          cached_tokens: event.usage.cachedTokens ?? 0,
          output_tokens: event.usage.completionTokens,
          context_window: event.contextWindow,
        },
      ];
    case "notice":
      return [
        {
          type: "notice",
          severity: event.severity,
          title: event.title,
          ...(event.description === undefined ? {} : { description: event.description }),
        },
      ];
    case "compaction":
      return [
        {
          type: "compaction",
          status: event.status,
          ...(event.summary === undefined ? {} : { summary: event.summary }),
          ...(event.error === undefined ? {} : { error: event.error }),
        },
      ];
    case "turn_end":
      return [
        {
          type: "turn_end",
          reason: event.reason,
          ...(event.error === undefined ? {} : { error: event.error }),
        },
      ];
    default: {
      const unhandled: never = event;
      throw new Error(`unhandled live event ${JSON.stringify(unhandled)}`);
    }
  }
}

/** One event as its line. */
export function jsonLine(event: ExecJsonEvent): string {
  return `${JSON.stringify(event)}\n`;
}
