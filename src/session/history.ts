/**
 * The model's view of a session: the log folded into Chat Completions messages (no system
 * message; the agent adds its own). Every assistant tool call is answered by exactly one tool
 * message, whatever the log holds, because the API rejects a history where one is missing.
 */
import type { ChatMessage, ChatToolCall } from "../llm/types.ts";
import type { EventOf, SessionEvent, UserContent } from "./events.ts";

/** The tool message for a call the log has no result for (the turn ended first). */
export const CANCELLED_TOOL_OUTPUT = "cancelled: the turn ended before this tool ran";

interface Step {
  reasoning: string;
  text: string;
  readonly calls: ChatToolCall[];
  /** Outputs by index in `calls`. */
  readonly outputs: Map<number, string>;
}

type Item =
  | { readonly kind: "user"; readonly content: string }
  | { readonly kind: "step"; readonly step: Step };

/**
 * Folds events into chat messages: one user message per logged user message, one assistant
 * message per model step (its reasoning, text and tool calls; reasoning "" when none), then one
 * tool message per call in call order. Results are matched to the earliest unanswered call
 * with the same id in the same turn, so ids reused across steps stay paired.
 */
export function foldHistory(events: readonly SessionEvent[]): ChatMessage[] {
  const items: Item[] = [];
  const steps = new Map<string, Step>();
  const unanswered = new Map<string, { step: Step; index: number }[]>();

  const stepOf = (event: { turnId: string; step: number }): Step => {
    const key = `${event.turnId}\u0000${event.step}`;
    let step = steps.get(key);
    if (step === undefined) {
      step = { reasoning: "", text: "", calls: [], outputs: new Map() };
      steps.set(key, step);
      items.push({ kind: "step", step });
    }
    return step;
  };

  for (const event of events) {
    switch (event.type) {
      case "user_message":
        items.push({ kind: "user", content: renderUserContent(event.content) });
        break;
      case "reasoning":
        stepOf(event).reasoning += event.text;
        break;
      case "assistant_text":
        stepOf(event).text += event.text;
        break;
      case "tool_call":
        addCall(stepOf(event), event, unanswered);
        break;
      case "tool_result": {
        const waiting = unanswered.get(callKey(event));
        const call = waiting?.shift();
        // A result for no logged call has nothing to answer; the API would reject it.
        if (call !== undefined) call.step.outputs.set(call.index, event.output);
        break;
      }
      case "turn_start":
      case "prompt_submit":
      case "usage":
      case "compaction":
      case "turn_end":
      case "sandbox_mode":
      case "approval_policy":
      case "model":
      case "effort":
        break;
      default: {
        const exhaustive: never = event;
        return exhaustive;
      }
    }
  }
  return mergeUserRuns(items.flatMap(toMessages));
}

/**
 * Joins consecutive user messages (a turn cancelled before the model said anything leaves
 * one), since some providers reject two user messages in a row.
 */
function mergeUserRuns(messages: ChatMessage[]): ChatMessage[] {
  const merged: ChatMessage[] = [];
  for (const message of messages) {
    const previous = merged.at(-1);
    if (message.role === "user" && previous?.role === "user") {
      merged[merged.length - 1] = {
        role: "user",
        content: `${previous.content}\n\n${message.content}`,
      };
    } else {
      merged.push(message);
    }
  }
  return merged;
}

/**
 * A user message as the model reads it: text blocks as they are, a resource link as a
 * markdown link to its uri, blocks separated by a blank line.
 */
export function renderUserContent(content: readonly UserContent[]): string {
  return content
    .map((block) => (block.type === "text" ? block.text : `[${block.name}](${block.uri})`))
    .join("\n\n");
}

function addCall(
  step: Step,
  event: EventOf<"tool_call">,
  unanswered: Map<string, { step: Step; index: number }[]>,
) {
  const { callId: id, name, arguments: args } = event;
  const index = step.calls.push({ id, name, arguments: args }) - 1;
  const key = callKey(event);
  const waiting = unanswered.get(key);
  if (waiting === undefined) unanswered.set(key, [{ step, index }]);
  else waiting.push({ step, index });
}

function callKey(event: { turnId: string; callId: string }): string {
  return `${event.turnId}\u0000${event.callId}`;
}

function toMessages(item: Item): ChatMessage[] {
  if (item.kind === "user") return [{ role: "user", content: item.content }];
  const { step } = item;
  if (step.text === "" && step.reasoning === "" && step.calls.length === 0) return [];
  const assistant: ChatMessage = {
    role: "assistant",
    content: step.text,
    reasoning: step.reasoning,
    toolCalls: step.calls,
  };
  const answers = step.calls.map(
    (call, index): ChatMessage => ({
      role: "tool",
      toolCallId: call.id,
      content: step.outputs.get(index) ?? CANCELLED_TOOL_OUTPUT,
    }),
  );
  return [assistant, ...answers];
}
