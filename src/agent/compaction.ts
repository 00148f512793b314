/**
 * Compaction: the session's own model summarizes the context up to a cut, and a compaction
 * event in the log makes the history fold read that summary in place of everything up to the
 * cut, with the recent tail after it kept verbatim. The summary request repeats the previous
 * requests' prefix (same system prompt, tools and messages), so the provider's prefix cache
 * serves most of it. A failed or cancelled compaction logs nothing but its request's usage:
 * the history stays exactly as it was.
 */
import { errorMessage } from "../errors.ts";
import { estimateTokens } from "../llm/tokens.ts";
import type { ChatMessage, ModelClient, ModelInfo, ToolDefinition, Usage } from "../llm/types.ts";
import {
  compactionBoundaries,
  contextEvents,
  estimateContextTokens,
  eventTokens,
  foldCost,
  summaryMessageText,
  tokensAfter,
} from "../session/context.ts";
import type { SessionEvent } from "../session/events.ts";
import { foldHistory } from "../session/folds.ts";
import type { SessionLog } from "../session/types.ts";
import { budgetToolOutput } from "./output-budget.ts";
import { logUsage } from "./usage.ts";
import { type LiveEvent, liveEventOf } from "./types.ts";

export interface CompactionDeps {
  readonly log: SessionLog;
  readonly client: ModelClient;
  readonly systemPrompt: string;
  readonly definitions: readonly ToolDefinition[];
  readonly model: ModelInfo;
  readonly publish: (event: LiveEvent) => void;
  readonly now: () => Date;
}

export interface CompactionRequest {
  readonly turnId: string;
  /** What the summary should weigh most (`/compact FOCUS`). */
  readonly focus?: string;
  /** Estimated tokens of recent context to keep verbatim after the summary; 0 keeps none. */
  readonly keepTokens: number;
  /** Only cuts before this seq qualify (a turn's first request keeps the turn's own prompt). */
  readonly cutBefore?: number;
  readonly signal: AbortSignal;
}

/** What a completed compaction logged. */
export interface CompactionDone {
  /** The compaction as the log holds it. */
  readonly event: SessionEvent;
  /** Estimated context tokens after it. */
  readonly tokensAfter: number;
  /** What the summary request reported, if it did. */
  readonly usage?: Usage;
}

export type CompactionResult =
  | ({ readonly status: "completed" } & CompactionDone)
  | { readonly status: "failed"; readonly error: string }
  | { readonly status: "cancelled" };

/** Estimated tokens of what every request sends besides the messages. */
export function fixedTokens(systemPrompt: string, definitions: readonly ToolDefinition[]): number {
  return estimateTokens(systemPrompt) + estimateTokens(JSON.stringify(definitions));
}

/** Whether anything could be compacted (some cut before `before` exists). */
export function canCompact(
  events: SessionLog["events"],
  before = Number.POSITIVE_INFINITY,
): boolean {
  return compactionBoundaries(events).some((cut) => cut < before);
}

/** Compacts the context; never throws (failures are a `failed` result, abort `cancelled`). */
export async function compactContext(
  deps: CompactionDeps,
  request: CompactionRequest,
): Promise<CompactionResult> {
  const { turnId, signal } = request;
  const compactionId = crypto.randomUUID();
  deps.publish({ type: "compaction", turnId, compactionId, status: "in_progress" });
  const result = await summarize(deps, request, compactionId).catch(
    (error: unknown): CompactionResult =>
      signal.aborted
        ? { status: "cancelled" }
        : { status: "failed", error: `compaction failed: ${errorMessage(error)}` },
  );
  switch (result.status) {
    case "completed": {
      const completed = liveEventOf(result.event);
      if (completed !== undefined) deps.publish(completed);
      // The summary request's own usage, with the context meter as the compaction left it.
      deps.publish({
        type: "usage",
        turnId,
        usage: result.usage ?? { promptTokens: 0, completionTokens: 0 },
        contextWindow: deps.model.contextWindow,
        contextUsed: result.tokensAfter,
        costUsd: foldCost(deps.log.events),
      });
      break;
    }
    case "failed":
      deps.publish({
        type: "compaction",
        turnId,
        compactionId,
        status: "failed",
        error: result.error,
      });
      break;
    case "cancelled":
      deps.publish({ type: "compaction", turnId, compactionId, status: "cancelled" });
      break;
    default: {
      const exhaustive: never = result;
      return exhaustive;
    }
  }
  return result;
}

async function summarize(
  deps: CompactionDeps,
  request: CompactionRequest,
  compactionId: string,
): Promise<CompactionResult> {
  const { log } = deps;
  const { turnId, signal } = request;
  const cut = chooseCut(log.events, request.keepTokens, request.cutBefore);
  if (cut === undefined) return { status: "failed", error: "there is nothing to compact yet" };
  const fixed = fixedTokens(deps.systemPrompt, deps.definitions);
  const tokensBefore = estimateContextTokens(log.events, fixed);
  const context = contextEvents(log.events, cut);
  // Folded as one more user message, so a cut right after a user message still gives the
  // server alternating roles (the fold joins consecutive user messages).
  const instruction: SessionEvent = {
    type: "user_message",
    seq: (log.events.at(-1)?.seq ?? 0) + 1,
    at: deps.now().toISOString(),
    turnId,
    content: [{ type: "text", text: summaryInstruction(request.focus) }],
  };
  const messages = (events: readonly SessionEvent[]): ChatMessage[] => [
    { role: "system", content: deps.systemPrompt },
    ...foldHistory([...events, instruction]),
  ];
  let answer = await requestSummary(deps, turnId, messages(context), signal);
  // The summarized part alone may not fit either (the server refused the whole context and
  // the tail kept is small): once more, with every tool output of it cut short.
  if (answer.status === "context_length") {
    answer = await requestSummary(deps, turnId, messages(context.map(shortened)), signal);
  }
  if (answer.status !== "text") {
    if (answer.status === "cancelled" || signal.aborted) return { status: "cancelled" };
    return { status: "failed", error: `the summary request failed: ${answer.message}` };
  }
  const { text, usage } = answer;
  if (signal.aborted) return { status: "cancelled" };
  const summary = text.trim();
  if (summary === "") return { status: "failed", error: "the model returned no summary" };
  const after = fixed + estimateTokens(summaryMessageText(summary)) + tokensAfter(log.events, cut);
  const event = log.append({
    type: "compaction",
    turnId,
    compactionId,
    summary,
    upToSeq: cut,
    tokensBefore,
    tokensAfter: after,
    ...(request.focus === undefined ? {} : { focus: request.focus }),
  });
  await log.flush();
  return {
    status: "completed",
    event,
    tokensAfter: after,
    ...(usage === undefined ? {} : { usage }),
  };
}

type SummaryAnswer =
  | { readonly status: "text"; readonly text: string; readonly usage?: Usage }
  | { readonly status: "cancelled" }
  | { readonly status: "context_length" | "failed"; readonly message: string };

/** Streams one summary request; its usage is logged (a summary costs like any request). */
async function requestSummary(
  deps: CompactionDeps,
  turnId: string,
  messages: readonly ChatMessage[],
  signal: AbortSignal,
): Promise<SummaryAnswer> {
  let text = "";
  let usage: Usage | undefined;
  const request = {
    model: deps.model,
    messages,
    tools: deps.definitions,
    toolChoice: "none" as const,
    effort: "off" as const,
  };
  for await (const event of deps.client.stream(request, signal)) {
    if (event.type === "text_delta") text += event.text;
    else if (event.type === "usage") {
      usage = event.usage;
      logUsage(
        { log: deps.log, model: deps.model, now: deps.now },
        { turnId, usage: event.usage, compaction: true },
      );
    } else if (event.type === "error") {
      if (event.error.code === "aborted" || signal.aborted) return { status: "cancelled" };
      const status = event.error.code === "context_length" ? "context_length" : "failed";
      return { status, message: event.error.message };
    }
  }
  if (signal.aborted) return { status: "cancelled" };
  return usage === undefined ? { status: "text", text } : { status: "text", text, usage };
}

/** Tokens a tool output keeps in a summary request's second try. */
const SHORT_TOOL_OUTPUT_TOKENS = 500;

function shortened(event: SessionEvent): SessionEvent {
  if (event.type !== "tool_result") return event;
  const { output } = budgetToolOutput(event, SHORT_TOOL_OUTPUT_TOKENS);
  return { ...event, output };
}

/**
 * The cut that keeps the most recent context within `keepTokens`: the earliest boundary whose
 * tail fits, else the latest boundary (one huge recent item is summarized rather than kept).
 * One pass from the end: a tail only grows as its cut moves back.
 */
function chooseCut(
  events: SessionLog["events"],
  keepTokens: number,
  before = Number.POSITIVE_INFINITY,
): number | undefined {
  const cuts = compactionBoundaries(events).filter((cut) => cut < before);
  let chosen: number | undefined;
  let tail = 0;
  let index = events.length - 1;
  for (let k = cuts.length - 1; k >= 0; k--) {
    const cut = cuts[k] ?? 0;
    for (let event = events[index]; event !== undefined && event.seq > cut; event = events[index]) {
      tail += eventTokens(event);
      index -= 1;
    }
    if (tail > keepTokens) break;
    chosen = cut;
  }
  return chosen ?? cuts.at(-1);
}

function summaryInstruction(focus: string | undefined): string {
  const lines = [
    "Stop here and write a summary of this session so far, for yourself: the session will go on from the summary and the most recent messages only, so everything needed to continue must be in it.",
    "Cover, in short headed sections:",
    "- what the user asked for (their own words where they matter) and any constraints they set;",
    "- what was done, and what was decided and why;",
    "- the files that matter: their paths, what they hold, what changed in them;",
    "- commands and results that still matter (errors, test outcomes);",
    "- what is pending: the next step and any open question.",
    "Be specific (names, paths, numbers) and leave out what no longer matters. Do not call tools; answer with the summary only.",
  ];
  const trimmed = focus?.trim();
  if (trimmed) lines.push(`Give most weight to: ${trimmed}`);
  return lines.join("\n");
}
