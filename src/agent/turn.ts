/**
 * One prompt turn: stream a model step, run its tool calls, repeat until the model stops, a
 * limit is hit, the turn is cancelled or an error ends it. Everything the model produced is
 * logged (partial text too, on cancel); live deltas only go to subscribers. Before a request
 * whose prompt would pass `compactAt` of the model's window the context is compacted first,
 * and a server that still says the prompt is too long gets one compaction and one retry.
 */
import type {
  ChatMessage,
  ChatToolCall,
  Effort,
  LlmError,
  ModelClient,
  ModelInfo,
  ToolDefinition,
} from "../llm/types.ts";
import { estimateContextTokens, foldContext, foldCost } from "../session/context.ts";
import type { LoggedError, NewSessionEvent } from "../session/events.ts";
import { firstSeqOfTurn } from "../session/folds.ts";
import type { SessionLog } from "../session/types.ts";
import type { ToolContext, ToolRegistry } from "../tools/types.ts";
import { type CompactionResult, canCompact, compactContext, fixedTokens } from "./compaction.ts";
import { budgetToolOutput } from "./output-budget.ts";
import type { LiveEvent, SessionSettings, TurnOutcome, TurnStopReason } from "./types.ts";
import { logUsage } from "./usage.ts";

export interface TurnDeps {
  readonly log: SessionLog;
  readonly client: ModelClient;
  readonly tools: ToolRegistry;
  /**
   * The tool definitions offered in this session right now: read at every request, so a change
   * to an MCP server's tool list reaches the next request of the same turn.
   */
  readonly definitions: () => readonly ToolDefinition[];
  /**
   * The session's system message: one object for all its requests, so each request repeats the
   * previous one's messages as they were and the session's request writer reuses their bytes.
   */
  readonly system: Extract<ChatMessage, { role: "system" }>;
  /** The session root (realpath'd), for presenters. */
  readonly cwd: string;
  readonly maxRequests: number;
  /** The settings in force right now (a switch mid-turn reaches the next request). */
  readonly settings: () => SessionSettings;
  readonly model: (id: string) => ModelInfo;
  /** A model of the catalog that sees images, named where a model without vision gets one. */
  readonly visionModel?: string;
  /** The context of one tool call; `progress` carries its live output to subscribers. */
  readonly toolContext: (
    callId: string,
    signal: AbortSignal,
    progress: ToolContext["progress"],
  ) => ToolContext;
  /** Logs an event and publishes what it is live; for what goes out when it is logged. */
  readonly record: (event: NewSessionEvent) => void;
  /** Publishes what is live only (deltas, progress, usage with the session's totals). */
  readonly publish: (event: LiveEvent) => void;
  /** The share of the model's window a request may fill before the context is compacted. */
  readonly compactAt: number;
  readonly now: () => Date;
  /**
   * Whether calls of this tool run side by side with the calls of it next to them in one step
   * (`task`: subagents); the rest run one after another. None when absent.
   */
  readonly concurrent?: (name: string) => boolean;
}

/** The most recent context an automatic compaction keeps verbatim, in estimated tokens. */
const MAX_KEPT_TAIL_TOKENS = 50_000;

/** Recent context kept verbatim: a quarter of the threshold, at most `MAX_KEPT_TAIL_TOKENS`. */
export function keptTailTokens(model: ModelInfo, compactAt: number): number {
  return Math.min(MAX_KEPT_TAIL_TOKENS, Math.floor(model.contextWindow * compactAt * 0.25));
}

interface StepOutput {
  reasoning: string;
  text: string;
  toolCalls: readonly ChatToolCall[];
  end?: { reason: TurnStopReason; error?: LoggedError };
}

/** Runs the model/tool loop of a turn whose start, user message and anchor are logged. */
export async function runTurnLoop(
  deps: TurnDeps,
  turnId: string,
  signal: AbortSignal,
): Promise<TurnOutcome> {
  // After an automatic compaction that failed, or left the context over the threshold, the
  // turn makes no other: the next would do no better, and each costs a request.
  let autoCompactionSpent = false;
  let overflowRetried = false;
  for (let step = 1; ; ) {
    if (step > deps.maxRequests) return { turnId, reason: "max_turn_requests" };
    if (signal.aborted) return { turnId, reason: "cancelled" };

    const settings = deps.settings();
    const model = deps.model(settings.model);
    // Before the turn's first request only earlier turns are summarized: a prompt is never
    // compacted away before the model has read it.
    const cutBefore = step === 1 ? promptSeq(deps, turnId) : undefined;
    // With nothing to fold yet (a long first prompt, a window smaller than the system prompt)
    // the request goes as it is, and the server's answer decides.
    if (
      !autoCompactionSpent &&
      wouldPassThreshold(deps, model) &&
      canCompact(deps.log.events, cutBefore)
    ) {
      const result = await compact(deps, model, turnId, signal, cutBefore);
      if (result.status === "cancelled") return { turnId, reason: "cancelled" };
      autoCompactionSpent = result.status === "failed" || wouldPassThreshold(deps, model);
    }
    const head: ChatMessage[] = [deps.system];
    const messages = head.concat(foldContext(deps.log.events));
    const request = {
      turnId,
      step,
      model,
      messages,
      definitions: deps.definitions(),
      effort: settings.effort,
    };
    const output = await streamStep(deps, request, signal);

    if (output.end?.error?.code === "context_length" && producedNothing(output)) {
      const detail = output.end.error.message;
      if (overflowRetried) return contextLengthEnd(turnId, `${detail}; it was compacted already`);
      overflowRetried = true;
      const result = await compact(deps, model, turnId, signal, cutBefore);
      if (result.status === "cancelled") return { turnId, reason: "cancelled" };
      if (result.status === "failed") return contextLengthEnd(turnId, `${detail}; ${result.error}`);
      continue;
    }
    logStep(deps, turnId, step, output);

    if (output.end) return { turnId, ...output.end };
    if (output.toolCalls.length === 0) return { turnId, reason: "end_turn" };
    // The calls reach the disk before they act on the world: a crash mid-command still leaves
    // them in the log (and the reload shows them failed).
    await deps.log.flush();

    for (const batch of batches(output.toolCalls, deps.concurrent)) {
      if (signal.aborted) return { turnId, reason: "cancelled" };
      await Promise.all(batch.map((call) => runToolCall(deps, turnId, call, signal)));
    }
    step += 1;
  }
}

/** The step's calls in running order: a run of calls that may overlap is one batch. */
function batches(
  calls: readonly ChatToolCall[],
  concurrent: ((name: string) => boolean) | undefined,
): ChatToolCall[][] {
  const out: ChatToolCall[][] = [];
  for (const call of calls) {
    const last = out.at(-1);
    const side = concurrent?.(call.name) === true;
    if (side && last !== undefined && concurrent?.(last[0]?.name ?? "") === true) last.push(call);
    else out.push([call]);
  }
  return out;
}

function wouldPassThreshold(deps: TurnDeps, model: ModelInfo): boolean {
  const estimate = estimateContextTokens(
    deps.log.events,
    fixedTokens(deps.system.content, deps.definitions()),
  );
  return estimate > model.contextWindow * deps.compactAt;
}

/** The seq of the turn's first event (its start, before its prompt). */
function promptSeq(deps: TurnDeps, turnId: string): number | undefined {
  return firstSeqOfTurn(deps.log.events, turnId);
}

function compact(
  deps: TurnDeps,
  model: ModelInfo,
  turnId: string,
  signal: AbortSignal,
  cutBefore: number | undefined,
): Promise<CompactionResult> {
  return compactContext(
    {
      log: deps.log,
      client: deps.client,
      systemPrompt: deps.system.content,
      definitions: deps.definitions(),
      model,
      publish: deps.publish,
      now: deps.now,
    },
    {
      turnId,
      keepTokens: keptTailTokens(model, deps.compactAt),
      ...(cutBefore === undefined ? {} : { cutBefore }),
      signal,
    },
  );
}

function producedNothing(output: StepOutput): boolean {
  return output.text === "" && output.reasoning === "" && output.toolCalls.length === 0;
}

function contextLengthEnd(turnId: string, message: string): TurnOutcome {
  return { turnId, reason: "error", error: { code: "context_length", message } };
}

async function streamStep(
  deps: TurnDeps,
  step: {
    turnId: string;
    step: number;
    model: ModelInfo;
    messages: ChatMessage[];
    definitions: readonly ToolDefinition[];
    effort: Effort;
  },
  signal: AbortSignal,
): Promise<StepOutput> {
  const output: StepOutput = { reasoning: "", text: "", toolCalls: [] };
  const request = {
    model: step.model,
    messages: step.messages,
    tools: step.definitions,
    effort: step.effort,
    ...(deps.visionModel === undefined ? {} : { visionModel: deps.visionModel }),
  };
  for await (const event of deps.client.stream(request, signal)) {
    switch (event.type) {
      case "reasoning_delta":
        output.reasoning += event.text;
        deps.publish({ type: "reasoning_delta", turnId: step.turnId, text: event.text });
        break;
      case "text_delta":
        output.text += event.text;
        deps.publish({ type: "text_delta", turnId: step.turnId, text: event.text });
        break;
      case "tool_call_start":
      case "tool_call_delta":
        break;
      case "usage":
        logUsage(
          { log: deps.log, model: step.model, now: deps.now },
          {
            turnId: step.turnId,
            step: step.step,
            usage: event.usage,
          },
        );
        deps.publish({
          type: "usage",
          turnId: step.turnId,
          usage: event.usage,
          contextWindow: step.model.contextWindow,
          contextUsed: event.usage.promptTokens + event.usage.completionTokens,
          costUsd: foldCost(deps.log.events),
        });
        break;
      case "finish":
        output.toolCalls = event.reason === "length" ? [] : event.toolCalls;
        if (event.reason === "length") output.end = { reason: "max_tokens" };
        else if (event.reason === "content_filter" && event.toolCalls.length === 0) {
          output.end = { reason: "refusal" };
        }
        return output;
      case "error":
        output.end = errorEnd(event.error, signal);
        return output;
      case "notice":
        deps.publish({ ...event, turnId: step.turnId });
        break;
      default: {
        const unhandled: never = event;
        throw new Error(`unhandled model event ${JSON.stringify(unhandled)}`);
      }
    }
  }
  // A client that ends without finish or error breaks its contract; treat it like a cut stream.
  output.end = signal.aborted
    ? { reason: "cancelled" }
    : {
        reason: "error",
        error: { code: "premature_eof", message: "the model stream ended without a finish" },
      };
  return output;
}

function errorEnd(error: LlmError, signal: AbortSignal): StepOutput["end"] {
  if (error.code === "aborted" || signal.aborted) return { reason: "cancelled" };
  return { reason: "error", error: { code: error.code, message: error.message } };
}

function logStep(deps: TurnDeps, turnId: string, step: number, output: StepOutput): void {
  // Reasoning and text went out as deltas while they streamed: they are only logged.
  if (output.reasoning !== "")
    deps.log.append({ type: "reasoning", turnId, step, text: output.reasoning });
  if (output.text !== "")
    deps.log.append({ type: "assistant_text", turnId, step, text: output.text });
  for (const call of output.toolCalls) {
    deps.record({
      type: "tool_call",
      turnId,
      step,
      callId: call.id,
      name: call.name,
      arguments: call.arguments,
      intent: deps.tools.presentCall(call.name, call.arguments, { cwd: deps.cwd }),
    });
  }
}

async function runToolCall(
  deps: TurnDeps,
  turnId: string,
  call: ChatToolCall,
  signal: AbortSignal,
): Promise<void> {
  const context = deps.toolContext(call.id, signal, (chunk, exit) =>
    deps.publish({
      type: "tool_progress",
      turnId,
      callId: call.id,
      chunk,
      ...(exit === undefined ? {} : { exit }),
    }),
  );
  deps.publish({ type: "tool_start", turnId, callId: call.id });
  const executed = await deps.tools.execute(call.name, call.arguments, context);
  const { intent } = executed;
  const result = budgetToolOutput(executed.result);
  deps.record({
    type: "tool_result",
    turnId,
    callId: call.id,
    isError: result.isError,
    output: result.output,
    intent,
    ...(result.costUsd === undefined ? {} : { costUsd: result.costUsd }),
  });
}
