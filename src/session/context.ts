/**
 * The model's context as the log defines it once compactions happened: the latest compaction's
 * summary in place of every event up to its boundary, then the events after the boundary
 * verbatim. Also the folds that size the context and price the session. Nothing here reads a
 * file or rewrites the log; the folds a request needs keep running state per event array (see
 * `incremental.ts`), so their answers are those of a fold over the whole log.
 */
import { estimateTokens } from "../llm/tokens.ts";
import type { ChatMessage } from "../llm/types.ts";
import type { EventOf, SessionEvent } from "./events.ts";
import { type HistoryFold, createHistoryFold, userContentText } from "./history.ts";
import { incrementalFold } from "./incremental.ts";
import { hasRewind, withoutRewound } from "./rewind.ts";

/** Tokens each message adds beyond its text (role, separators), in estimates. */
const MESSAGE_OVERHEAD_TOKENS = 4;

/** The user message a compaction's summary becomes in the model's context. */
export function summaryMessageText(summary: string): string {
  return [
    "The earlier part of this session was compacted to save context. This summary replaces it:",
    "",
    summary.trim(),
    "",
    "The messages after this one continue the session verbatim.",
  ].join("\n");
}

const latest = incrementalFold<{ compactions: EventOf<"compaction">[] }>(
  () => ({ compactions: [] }),
  (state, event) => {
    if (event.type === "compaction") state.compactions.push(event);
    // A compaction made in turns a rewind took back is taken back with them.
    if (event.type === "rewind") {
      state.compactions = state.compactions.filter((c) => c.seq < event.fromSeq);
    }
  },
);

/** The latest compaction of the log that no rewind took back, if any. */
export function latestCompaction(
  events: readonly SessionEvent[],
): EventOf<"compaction"> | undefined {
  return latest(events).compactions.at(-1);
}

/**
 * The events the model reads: the latest compaction's summary (as a user message) and the
 * events after its boundary, or the whole log when it was never compacted. With `upToSeq`,
 * only events up to that seq.
 */
export function contextEvents(events: readonly SessionEvent[], upToSeq?: number): SessionEvent[] {
  const compaction = latestCompaction(events);
  const from = compaction?.upToSeq ?? 0;
  const shown = hasRewind(events) ? withoutRewound(events) : events;
  const tail = shown.filter(
    (event) =>
      event.seq > from &&
      (upToSeq === undefined || event.seq <= upToSeq) &&
      event.type !== "compaction",
  );
  if (compaction === undefined) return tail;
  const summary: SessionEvent = {
    type: "user_message",
    seq: compaction.seq,
    at: compaction.at,
    turnId: compaction.turnId,
    content: [{ type: "text", text: summaryMessageText(compaction.summary) }],
  };
  return [summary, ...tail];
}

/**
 * The history fold of `contextEvents`, kept as events are appended: a compaction starts it
 * again from its summary, any other event is folded in.
 */
const context = incrementalFold<{ fold: HistoryFold }>(
  () => ({ fold: createHistoryFold() }),
  (state, event, events, index) => {
    if (event.type === "compaction" || event.type === "rewind") {
      state.fold = createHistoryFold();
      for (const kept of contextEvents(events.slice(0, index + 1))) state.fold.add(kept);
    } else {
      state.fold.add(event);
    }
  },
);

/** The chat messages of the model's context (no system message). */
export function foldContext(events: readonly SessionEvent[]): ChatMessage[] {
  return context(events).fold.messages();
}

type HistoryEvent = EventOf<
  "user_message" | "reasoning" | "assistant_text" | "tool_call" | "tool_result"
>;

function isHistoryEvent(event: SessionEvent): event is HistoryEvent {
  return (
    event.type === "user_message" ||
    event.type === "reasoning" ||
    event.type === "assistant_text" ||
    event.type === "tool_call" ||
    event.type === "tool_result"
  );
}

/** Estimated tokens one event adds to the model's context. */
export function eventTokens(event: SessionEvent): number {
  switch (event.type) {
    case "user_message":
      return estimateTokens(userContentText(event.content)) + MESSAGE_OVERHEAD_TOKENS;
    case "reasoning":
    case "assistant_text":
      return estimateTokens(event.text) + MESSAGE_OVERHEAD_TOKENS;
    case "tool_call":
      return estimateTokens(event.name + event.arguments + event.callId) + MESSAGE_OVERHEAD_TOKENS;
    case "tool_result":
      return estimateTokens(event.output) + MESSAGE_OVERHEAD_TOKENS;
    default:
      return 0;
  }
}

/**
 * Where a compaction may cut: the seqs `upToSeq` may take, ascending. A cut falls between two
 * model-visible items (before a user message or a new model step) with every tool call before
 * it answered, so neither side holds a call without its result; the end of the log counts
 * when no call is waiting. Only cuts after the latest compaction's boundary are listed.
 */
export function compactionBoundaries(events: readonly SessionEvent[]): number[] {
  const from = latestCompaction(events)?.upToSeq ?? 0;
  const cuts: number[] = [];
  const waiting = new Set<string>();
  let lastSeq: number | undefined;
  let stepKey: string | undefined;
  for (const event of events) {
    if (event.seq <= from) continue;
    if (event.type === "turn_end") {
      for (const key of waiting) if (key.startsWith(`${event.turnId}\u0000`)) waiting.delete(key);
      continue;
    }
    if (!isHistoryEvent(event)) continue;
    let startsItem: boolean;
    if (event.type === "user_message") {
      // Calls of an earlier turn that never got a result never will: the fold cancels them.
      waiting.clear();
      startsItem = true;
      stepKey = undefined;
    } else if (event.type === "tool_result") {
      startsItem = false;
    } else {
      const key = stepOf(event);
      startsItem = key !== stepKey;
      stepKey = key;
    }
    if (startsItem && waiting.size === 0 && lastSeq !== undefined) cuts.push(lastSeq);
    if (event.type === "tool_call") waiting.add(`${event.turnId}\u0000${event.callId}`);
    if (event.type === "tool_result") waiting.delete(`${event.turnId}\u0000${event.callId}`);
    lastSeq = event.seq;
  }
  if (waiting.size === 0 && lastSeq !== undefined && cuts.at(-1) !== lastSeq) cuts.push(lastSeq);
  return cuts;
}

function stepOf(event: EventOf<"reasoning" | "assistant_text" | "tool_call">): string {
  return `${event.turnId}\u0000${event.step}`;
}

/** Estimated tokens of the events after a cut at `seq` (the tail it keeps verbatim). */
export function tokensAfter(events: readonly SessionEvent[], seq: number): number {
  let total = 0;
  for (const event of events) if (event.seq > seq) total += eventTokens(event);
  return total;
}

/**
 * The prompt tokens the next request would send: the last request's reported prompt and
 * output tokens plus an estimate of what was appended since; with no request since the
 * latest compaction, an estimate of the whole context plus `fixedTokens` (system prompt and
 * tool definitions).
 */
export function estimateContextTokens(
  events: readonly SessionEvent[],
  fixedTokens: number,
): number {
  const compaction = latestCompaction(events);
  const usage = lastContextUsage(events, compaction?.seq ?? 0);
  if (usage === undefined) {
    return contextEvents(events).reduce((sum, event) => sum + eventTokens(event), fixedTokens);
  }
  let total = usage.promptTokens + usage.completionTokens;
  // From the end back to the usage: only what was appended since is read.
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as SessionEvent;
    if (event.seq <= usage.seq) break;
    if (!isHistoryEvent(event)) continue;
    // The reported output tokens already count the step's own reasoning, text and calls.
    const ownStep =
      event.type !== "user_message" &&
      event.type !== "tool_result" &&
      event.turnId === usage.turnId &&
      event.step === usage.step;
    if (!ownStep) total += eventTokens(event);
  }
  return total;
}

/** The last request's usage after `afterSeq`, not counting compaction summaries or subagents. */
function lastContextUsage(
  events: readonly SessionEvent[],
  afterSeq: number,
): EventOf<"usage"> | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event === undefined || event.seq <= afterSeq) return undefined;
    if (event.type === "usage" && event.compaction !== true && event.task === undefined)
      return event;
  }
  return undefined;
}

/**
 * Tokens in the context as of the last request (its prompt plus output); after a compaction
 * with no request since, the compaction's estimate; 0 before any request.
 */
export function contextUsed(events: readonly SessionEvent[]): number {
  const compaction = latestCompaction(events);
  const usage = lastContextUsage(events, compaction?.seq ?? 0);
  if (usage !== undefined) return usage.promptTokens + usage.completionTokens;
  return compaction?.tokensAfter ?? 0;
}

const cost = incrementalFold<{ total: number }>(
  () => ({ total: 0 }),
  (state, event) => {
    if (event.type === "usage" || event.type === "tool_result") state.total += event.costUsd ?? 0;
  },
);

/**
 * The session's cost so far in USD: the sum of its logged requests' costs and its paid tool
 * calls' (web searches), in log order.
 */
export function foldCost(events: readonly SessionEvent[]): number {
  return cost(events).total;
}
