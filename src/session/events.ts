/**
 * The session log's line shapes. Every line of `<id>.jsonl` is one of these; the first is
 * the header. The TypeScript types are inferred from the schemas, so the schema is the only
 * definition of what a log may hold.
 */
import * as v from "valibot";
import { lazySchema } from "../lazy-schema.ts";
import { RenderIntent } from "../render/intent.ts";
import { EVENT_FIELDS } from "./event-fields.ts";
import { SETTING_EVENTS } from "./settings.ts";

export const LOG_FORMAT_VERSION = 1;

/** The header and the parts events share. */
function baseSchemas() {
  const SessionHeader = v.object({
    type: v.literal("header"),
    version: v.literal(LOG_FORMAT_VERSION),
    id: v.string(),
    cwd: v.string(),
    createdAt: v.string(),
  });

  /**
   * What a user may send: plain text, a link to a resource (usually a `file://` uri), a
   * resource's text embedded by the client (bounded when it was received), or an image as
   * base64 data (kept in the log, so a reloaded session sends the same request).
   */
  const UserContent = v.variant("type", [
    v.object({ type: v.literal("text"), text: v.string() }),
    v.object({
      type: v.literal("resource_link"),
      uri: v.string(),
      name: v.string(),
      title: v.optional(v.nullable(v.string())),
      mimeType: v.optional(v.nullable(v.string())),
    }),
    v.object({
      type: v.literal("resource"),
      uri: v.string(),
      text: v.string(),
      mimeType: v.optional(v.nullable(v.string())),
    }),
    v.object({
      type: v.literal("image"),
      mimeType: v.string(),
      data: v.string(),
      uri: v.optional(v.nullable(v.string())),
    }),
  ]);

  /** Why a logged turn ended. */
  const EndReason = v.picklist([
    "end_turn",
    "max_tokens",
    "max_turn_requests",
    "refusal",
    "cancelled",
    "error",
  ]);
  /** A typed error as it is logged: a stable code and a one-line message. */
  const LoggedError = v.object({ code: v.string(), message: v.string() });

  return { SessionHeader, UserContent, EndReason, LoggedError };
}

const turn = () => ({ ...EVENT_FIELDS, turnId: v.string() });

/** A prompt turn's own events: its start, the prompt, the model's blocks and calls. */
function turnSchemas(base: ReturnType<typeof baseSchemas>) {
  const { UserContent } = base;
  const turnFields = turn();

  const TurnStartEvent = v.object({ type: v.literal("turn_start"), ...turnFields });
  const UserMessageEvent = v.object({
    type: v.literal("user_message"),
    ...turnFields,
    content: v.array(UserContent),
  });
  /** Marks the point after which a turn's config is settled; pending config lands right after it. */
  const PromptSubmitEvent = v.object({ type: v.literal("prompt_submit"), ...turnFields });
  /** Whole blocks per model step; the live deltas are never logged one by one. */
  const ReasoningEvent = v.object({
    type: v.literal("reasoning"),
    ...turnFields,
    step: v.number(),
    text: v.string(),
  });
  const AssistantTextEvent = v.object({
    type: v.literal("assistant_text"),
    ...turnFields,
    step: v.number(),
    text: v.string(),
  });
  /** `arguments` is the model's raw JSON text, sent back verbatim in later requests. */
  const ToolCallEvent = v.object({
    type: v.literal("tool_call"),
    ...turnFields,
    step: v.number(),
    callId: v.string(),
    name: v.string(),
    arguments: v.string(),
    intent: RenderIntent,
  });
  const ToolResultEvent = v.object({
    type: v.literal("tool_result"),
    ...turnFields,
    callId: v.string(),
    isError: v.boolean(),
    /** The text the model reads. */
    output: v.string(),
    intent: RenderIntent,
    /** What the call cost in USD (a paid web API's); part of the session's cost. */
    costUsd: v.optional(v.number()),
  });
  return {
    TurnStartEvent,
    UserMessageEvent,
    PromptSubmitEvent,
    ReasoningEvent,
    AssistantTextEvent,
    ToolCallEvent,
    ToolResultEvent,
  };
}

/** What else a log holds: usage, progress, compactions, ends, rewinds, directories. */
function otherSchemas(base: ReturnType<typeof baseSchemas>) {
  const { EndReason, LoggedError } = base;
  const turnFields = turn();
  /**
   * One model request's reported tokens. `cacheHitTokens + cacheMissTokens = promptTokens`;
   * `costUsd` is what the request cost at its model's prices when it was made. Logs written
   * before hits and misses were kept have `cachedTokens` instead.
   */
  const UsageEvent = v.object({
    type: v.literal("usage"),
    ...turnFields,
    /** The model step it belongs to; absent for a compaction's summary request. */
    step: v.optional(v.number()),
    promptTokens: v.number(),
    completionTokens: v.number(),
    cachedTokens: v.optional(v.number()),
    cacheHitTokens: v.optional(v.number()),
    cacheMissTokens: v.optional(v.number()),
    reasoningTokens: v.optional(v.number()),
    costUsd: v.optional(v.number()),
    /** The model's window when the request was made (replay shows the context meter with it). */
    contextWindow: v.optional(v.number()),
    /** Set on the usage of a compaction's summary request (it says nothing of the context). */
    compaction: v.optional(v.literal(true)),
    /**
     * The `task` call whose subagent made the request: it counts in the session's cost, and says
     * nothing of the session's own context.
     */
    task: v.optional(v.string()),
  });
  /** One step of a `task` call's subagent ("Read src/app.ts"), shown as that call's progress. */
  const TaskStepEvent = v.object({
    type: v.literal("task_step"),
    ...turnFields,
    callId: v.string(),
    line: v.string(),
  });
  /**
   * The context was compacted: from now on the model reads `summary` in place of every event up
   * to `upToSeq` (the events after it stay verbatim). The log itself keeps every event.
   */
  const CompactionEvent = v.object({
    type: v.literal("compaction"),
    ...turnFields,
    compactionId: v.string(),
    summary: v.string(),
    upToSeq: v.pipe(v.number(), v.integer(), v.minValue(0)),
    /** Estimated context tokens before and after. */
    tokensBefore: v.number(),
    tokensAfter: v.number(),
    focus: v.optional(v.string()),
  });
  const TurnEndEvent = v.object({
    type: v.literal("turn_end"),
    ...turnFields,
    reason: EndReason,
    error: v.optional(LoggedError),
  });
  /**
   * The conversation goes back to before turn `toTurnId`: from now on the model, a reload and
   * replay read the log as if the events from `fromSeq` (that turn's first) up to this one were
   * not there. The log keeps them.
   */
  const RewindEvent = v.object({
    type: v.literal("rewind"),
    ...EVENT_FIELDS,
    toTurnId: v.string(),
    fromSeq: v.pipe(v.number(), v.integer(), v.minValue(0)),
  });
  /**
   * One more directory the session works in (`additionalDirectories`, `--add-dir`, `/add-dir`):
   * a realpath, writable like the cwd. A reload restores every one the log names.
   */
  const DirectoryEvent = v.object({
    type: v.literal("directory"),
    ...EVENT_FIELDS,
    path: v.string(),
  });
  return { UsageEvent, TaskStepEvent, CompactionEvent, TurnEndEvent, RewindEvent, DirectoryEvent };
}

/**
 * Every line shape, built together at the first parse rather than when the module loads: a
 * new session's log is made, and answered, without them.
 */
function buildSchemas() {
  const base = baseSchemas();
  const turns = turnSchemas(base);
  const others = otherSchemas(base);
  const SessionEvent = v.variant("type", [
    turns.TurnStartEvent,
    turns.UserMessageEvent,
    turns.PromptSubmitEvent,
    turns.ReasoningEvent,
    turns.AssistantTextEvent,
    turns.ToolCallEvent,
    turns.ToolResultEvent,
    others.UsageEvent,
    others.CompactionEvent,
    others.TurnEndEvent,
    others.TaskStepEvent,
    others.RewindEvent,
    others.DirectoryEvent,
    // The settings a session records, one event each (see `settings.ts`).
    ...SETTING_EVENTS,
  ]);
  return { ...base, ...turns, ...others, SessionEvent };
}

let built: ReturnType<typeof buildSchemas> | undefined;
const schemas = () => {
  built ??= buildSchemas();
  return built;
};

export const SessionHeader = lazySchema(() => schemas().SessionHeader);
export const UserContent = lazySchema(() => schemas().UserContent);
export const EndReason = lazySchema(() => schemas().EndReason);
export const LoggedError = lazySchema(() => schemas().LoggedError);
export const TurnStartEvent = lazySchema(() => schemas().TurnStartEvent);
export const UserMessageEvent = lazySchema(() => schemas().UserMessageEvent);
export const PromptSubmitEvent = lazySchema(() => schemas().PromptSubmitEvent);
export const ReasoningEvent = lazySchema(() => schemas().ReasoningEvent);
export const AssistantTextEvent = lazySchema(() => schemas().AssistantTextEvent);
export const ToolCallEvent = lazySchema(() => schemas().ToolCallEvent);
export const ToolResultEvent = lazySchema(() => schemas().ToolResultEvent);
export const UsageEvent = lazySchema(() => schemas().UsageEvent);
export const TaskStepEvent = lazySchema(() => schemas().TaskStepEvent);
export const CompactionEvent = lazySchema(() => schemas().CompactionEvent);
export const TurnEndEvent = lazySchema(() => schemas().TurnEndEvent);
export const RewindEvent = lazySchema(() => schemas().RewindEvent);
export const DirectoryEvent = lazySchema(() => schemas().DirectoryEvent);
export const SessionEvent = lazySchema(() => schemas().SessionEvent);
/** The built schema of a line that is an event, for what reads its options. */
export function sessionEventVariant() {
  return schemas().SessionEvent;
}

export type SessionHeader = v.InferOutput<typeof SessionHeader>;
export type UserContent = v.InferOutput<typeof UserContent>;
export type EndReason = v.InferOutput<typeof EndReason>;
/** `interrupted` is never written: the fold gives it to a turn that has a start and no end. */
export type StopReason = EndReason | "interrupted";
export type LoggedError = v.InferOutput<typeof LoggedError>;
export type SessionEvent = v.InferOutput<typeof SessionEvent>;
export type SessionEventType = SessionEvent["type"];
export type EventOf<T extends SessionEventType> = Extract<SessionEvent, { type: T }>;

/** What a caller hands to `append`: the log assigns `seq` and `at`. */
export type NewSessionEvent = SessionEvent extends infer E
  ? E extends SessionEvent
    ? Omit<E, "seq" | "at">
    : never
  : never;

export type Effort = EventOf<"effort">["effort"];
