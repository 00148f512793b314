/**
 * One prompt turn: stream a model step, run its tool calls, repeat until the model stops, a
 * limit is hit, the turn is cancelled or an error ends it. Everything the model produced is
 * logged (partial text too, on cancel); live deltas only go to subscribers.
 */
import type {
  ChatMessage,
  ChatToolCall,
  Effort,
  LlmError,
  ModelClient,
  ModelInfo,
  ToolDefinition,
  Usage,
} from "../llm/types.ts";
import type { LoggedError } from "../session/events.ts";
import { foldHistory } from "../session/folds.ts";
import type { SessionLog } from "../session/types.ts";
import type { ToolContext, ToolRegistry } from "../tools/types.ts";
import type { LiveEvent, SessionSettings, TurnOutcome, TurnStopReason } from "./types.ts";

export interface TurnDeps {
  readonly log: SessionLog;
  readonly client: ModelClient;
  readonly tools: ToolRegistry;
  /** The tool definitions offered in this session. */
  readonly definitions: readonly ToolDefinition[];
  readonly systemPrompt: string;
  /** The session root (realpath'd), for presenters. */
  readonly cwd: string;
  readonly maxRequests: number;
  /** The settings in force right now (a switch mid-turn reaches the next request). */
  readonly settings: () => SessionSettings;
  readonly model: (id: string) => ModelInfo;
  readonly toolContext: (callId: string, signal: AbortSignal) => Omit<ToolContext, "progress">;
  readonly publish: (event: LiveEvent) => void;
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
  for (let step = 1; ; step++) {
    if (step > deps.maxRequests) return { turnId, reason: "max_turn_requests" };
    if (signal.aborted) return { turnId, reason: "cancelled" };

    const settings = deps.settings();
    const model = deps.model(settings.model);
    const messages: ChatMessage[] = [
      { role: "system", content: deps.systemPrompt },
      ...foldHistory(deps.log.events),
    ];
    const request = {
      turnId,
      model,
      messages,
      definitions: deps.definitions,
      effort: settings.effort,
    };
    const output = await streamStep(deps, request, signal);
    logStep(deps, turnId, step, output);

    if (output.end) return { turnId, ...output.end };
    if (output.toolCalls.length === 0) return { turnId, reason: "end_turn" };
    // The calls reach the disk before they act on the world: a crash mid-command still leaves
    // them in the log (and the reload shows them failed).
    await deps.log.flush();

    for (const call of output.toolCalls) {
      if (signal.aborted) return { turnId, reason: "cancelled" };
      await runToolCall(deps, turnId, call, signal);
    }
  }
}

async function streamStep(
  deps: TurnDeps,
  step: {
    turnId: string;
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
        logUsage(deps, step.turnId, event.usage, step.model.contextWindow);
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
  if (output.reasoning !== "")
    deps.log.append({ type: "reasoning", turnId, step, text: output.reasoning });
  if (output.text !== "")
    deps.log.append({ type: "assistant_text", turnId, step, text: output.text });
  for (const call of output.toolCalls) {
    const intent = deps.tools.presentCall(call.name, call.arguments, { cwd: deps.cwd });
    deps.log.append({
      type: "tool_call",
      turnId,
      step,
      callId: call.id,
      name: call.name,
      arguments: call.arguments,
      intent,
    });
    deps.publish({
      type: "tool_call",
      turnId,
      callId: call.id,
      name: call.name,
      rawInput: parseRawInput(call.arguments),
      intent,
    });
  }
}

async function runToolCall(
  deps: TurnDeps,
  turnId: string,
  call: ChatToolCall,
  signal: AbortSignal,
): Promise<void> {
  const context: ToolContext = {
    ...deps.toolContext(call.id, signal),
    progress: (chunk) => deps.publish({ type: "tool_progress", turnId, callId: call.id, chunk }),
  };
  deps.publish({ type: "tool_start", turnId, callId: call.id });
  const { result, intent } = await deps.tools.execute(call.name, call.arguments, context);
  deps.log.append({
    type: "tool_result",
    turnId,
    callId: call.id,
    isError: result.isError,
    output: result.output,
    intent,
  });
  deps.publish({
    type: "tool_result",
    turnId,
    callId: call.id,
    isError: result.isError,
    output: result.output,
    intent,
  });
}

function logUsage(deps: TurnDeps, turnId: string, usage: Usage, contextWindow: number): void {
  deps.log.append({
    type: "usage",
    turnId,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    ...(usage.cachedTokens === undefined ? {} : { cachedTokens: usage.cachedTokens }),
    ...(usage.reasoningTokens === undefined ? {} : { reasoningTokens: usage.reasoningTokens }),
  });
  deps.publish({ type: "usage", turnId, usage, contextWindow });
}

/** The arguments as an object for display when they parse, else the raw text. */
function parseRawInput(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
