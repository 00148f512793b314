/**
 * The model's view of a session: the log folded into Chat Completions messages (no system
 * message; the agent adds its own). Every assistant tool call is answered by exactly one tool
 * message, whatever the log holds, because the API rejects a history where one is missing.
 */
import type { ChatContentPart, ChatMessage, ChatToolCall } from "../llm/types.ts";
import type { EventOf, SessionEvent, UserContent } from "./events.ts";
import { isSettingEvent } from "./settings.ts";

/** The tool message for a call the log has no result for (the turn ended first). */
export const CANCELLED_TOOL_OUTPUT = "cancelled: the turn ended before this tool ran";

interface Step {
  /** The step's place in the fold's items. */
  readonly item: number;
  reasoning: string;
  text: string;
  readonly calls: ChatToolCall[];
  /** Outputs by index in `calls` (made at the first: most steps call no tool). */
  outputs?: Map<number, string>;
}

type UserText = string | readonly ChatContentPart[];

type Item =
  | { readonly kind: "user"; readonly content: UserText }
  | { readonly kind: "note"; readonly content: string }
  | { readonly kind: "step"; readonly step: Step };

/**
 * Folds events into chat messages: one user message per logged user message, one assistant
 * message per model step (its reasoning, text and tool calls; reasoning "" when none), then one
 * tool message per call in call order. Results are matched to the earliest unanswered call
 * with the same id in the same turn, so ids reused across steps stay paired.
 */
export function foldHistory(events: readonly SessionEvent[]): ChatMessage[] {
  const fold = createHistoryFold();
  for (const event of events) fold.add(event);
  return fold.messages();
}

/** `foldHistory` one event at a time: messages cost only what changed since they were last read. */
export interface HistoryFold {
  add(event: SessionEvent): void;
  /**
   * The messages of every event added so far, equal to `foldHistory` of them: a new array, whose
   * messages may be shared with earlier answers and are never changed.
   */
  messages(): ChatMessage[];
}

/** A history fold with no events yet. */
export function createHistoryFold(): HistoryFold {
  const items: Item[] = [];
  const steps = new Map<string, Step>();
  const unanswered = new Map<string, { step: Step; index: number }[]>();
  // The messages of the items before `clean`, user runs merged. Rendering item i found the
  // merged list `markLengths[i]` long, ending in `markLasts[i]`, so it can be rendered again
  // after a later event changed it. Two arrays, not an object per item: a long session holds
  // one mark for each of its items.
  const merged: ChatMessage[] = [];
  const markLengths: number[] = [];
  const markLasts: (ChatMessage | undefined)[] = [];
  let clean = 0;
  const changed = (item: number) => {
    clean = Math.min(clean, item);
  };

  const stepOf = (event: { turnId: string; step: number }): Step => {
    const key = `${event.turnId}\u0000${event.step}`;
    let step = steps.get(key);
    if (step === undefined) {
      step = { item: items.length, reasoning: "", text: "", calls: [] };
      items.push({ kind: "step", step });
      steps.set(key, step);
    } else {
      changed(step.item);
    }
    return step;
  };

  // The turn being read: whether the user asked something in it and the model answered. Only
  // a logged turn counts; a user message standing in for a summary has none.
  let turn: { turnId: string; asked: boolean; answered: boolean } | undefined;
  const endTurn = (reason: string, error?: { message: string }) => {
    if (turn?.asked === true && !turn.answered)
      items.push({ kind: "note", content: unansweredNote(reason, error) });
    turn = undefined;
  };
  const answer = (said: boolean) => {
    if (turn !== undefined && said) turn.answered = true;
  };

  const add = (event: SessionEvent): undefined => {
    switch (event.type) {
      case "turn_start":
        endTurn("interrupted");
        turn = { turnId: event.turnId, asked: false, answered: false };
        break;
      case "user_message":
        if (turn?.turnId === event.turnId) turn.asked = true;
        items.push({ kind: "user", content: renderUserContent(event.content) });
        break;
      case "reasoning": {
        const step = stepOf(event);
        step.reasoning = joined(step.reasoning, event.text);
        answer(event.text !== "");
        break;
      }
      case "assistant_text": {
        const step = stepOf(event);
        step.text = joined(step.text, event.text);
        answer(event.text !== "");
        break;
      }
      case "tool_call":
        addCall(stepOf(event), event, unanswered);
        answer(true);
        break;
      case "turn_end":
        if (turn?.turnId === event.turnId) endTurn(event.reason, event.error);
        break;
      case "tool_result": {
        const key = callKey(event);
        const waiting = unanswered.get(key);
        const call = waiting?.shift();
        if (waiting?.length === 0) unanswered.delete(key);
        // A result for no logged call has nothing to answer; the API would reject it.
        if (call !== undefined) {
          call.step.outputs ??= new Map();
          call.step.outputs.set(call.index, event.output);
          changed(call.step.item);
        }
        break;
      }
      case "prompt_submit":
      case "usage":
      case "compaction":
      // A subagent's steps are shown, never read back: its answer is the task's result.
      case "task_step":
      case "rewind":
      case "directory":
        break;
      default: {
        // Settings are no part of the conversation.
        if (isSettingEvent(event)) break;
        const exhaustive: never = event;
        return exhaustive;
      }
    }
  };

  const messages = (): ChatMessage[] => {
    const length = markLengths[clean];
    if (length !== undefined) {
      const last = markLasts[clean];
      merged.length = length;
      if (last !== undefined) merged[length - 1] = last;
      markLengths.length = clean;
      markLasts.length = clean;
    }
    for (let i = clean; i < items.length; i++) {
      markLengths.push(merged.length);
      markLasts.push(merged.at(-1));
      for (const message of toMessages(items[i] as Item)) pushMerged(merged, message);
    }
    clean = items.length;
    return merged.slice();
  };

  return { add, messages };
}

/**
 * What the model reads in place of an answer a turn never got, so it knows that prompt was not
 * answered and does not answer it with the next one.
 */
function unansweredNote(reason: string, error?: { message: string }): string {
  if (reason === "cancelled") return "(No answer: the user cancelled this turn before any reply.)";
  if (reason === "error")
    return `(No answer: this turn failed before any reply${error ? `: ${error.message}` : ""}.)`;
  return "(No answer: this turn ended before any reply.)";
}

/**
 * Appends `message`, joining it to a user message it follows, since some providers reject two
 * user messages in a row (an unanswered turn gets a note of its own instead, so this only joins
 * what the log itself holds twice).
 */
function pushMerged(merged: ChatMessage[], message: ChatMessage): void {
  const previous = merged.at(-1);
  if (message.role === "user" && previous?.role === "user") {
    merged[merged.length - 1] = {
      role: "user",
      content: joinUserText(previous.content, message.content),
    };
  } else {
    merged.push(message);
  }
}

/**
 * A user message as the model reads it: text blocks as they are, a resource link as a
 * markdown link to its uri, an embedded resource as its text framed by its uri, blocks
 * separated by a blank line. With an image the message becomes parts (text runs merged).
 */
export function renderUserContent(content: readonly UserContent[]): UserText {
  const parts: ChatContentPart[] = [];
  for (const block of content) {
    if (block.type === "image") {
      parts.push({ type: "image", mimeType: block.mimeType, data: block.data });
      continue;
    }
    const text = blockText(block);
    const last = parts.at(-1);
    if (last?.type === "text")
      parts[parts.length - 1] = { type: "text", text: `${last.text}\n\n${text}` };
    else parts.push({ type: "text", text });
  }
  if (parts.every((part) => part.type === "text")) return parts.map((p) => p.text).join("\n\n");
  return parts;
}

/** Characters an image stands for in `userContentText`: about what a provider bills for one. */
const IMAGE_TEXT_WEIGHT = 4_000;

/**
 * A user message as plain text, each image as a placeholder of about its weight: for token
 * estimates, never for a request.
 */
export function userContentText(content: readonly UserContent[]): string {
  return content
    .map((block) =>
      block.type === "image" ? `[image]${" ".repeat(IMAGE_TEXT_WEIGHT)}` : blockText(block),
    )
    .join("\n\n");
}

function blockText(block: Exclude<UserContent, { type: "image" }>): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "resource_link":
      return `[${block.name}](${block.uri})`;
    case "resource":
      return `<resource uri="${block.uri}">\n${block.text}\n</resource>`;
    default: {
      const exhaustive: never = block;
      return exhaustive;
    }
  }
}

function joinUserText(a: UserText, b: UserText): UserText {
  if (typeof a === "string" && typeof b === "string") return `${a}\n\n${b}`;
  const parts = (t: UserText): readonly ChatContentPart[] =>
    typeof t === "string" ? [{ type: "text", text: t }] : t;
  return [...parts(a), ...parts(b)];
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

/**
 * `a + b`, but `b` itself when `a` is "": the step's first text is then the event's own string,
 * where `"" + b` would hold a second copy of it.
 */
function joined(a: string, b: string): string {
  return a === "" ? b : a + b;
}

function callKey(event: { turnId: string; callId: string }): string {
  return `${event.turnId}\u0000${event.callId}`;
}

/** The calls of every message without any: one array, never changed, for all of them. */
const NO_CALLS: readonly ChatToolCall[] = Object.freeze([]);

function toMessages(item: Item): ChatMessage[] {
  if (item.kind === "user") return [{ role: "user", content: item.content }];
  if (item.kind === "note")
    return [{ role: "assistant", content: item.content, reasoning: "", toolCalls: NO_CALLS }];
  const { step } = item;
  if (step.text === "" && step.reasoning === "" && step.calls.length === 0) return [];
  const assistant: ChatMessage = {
    role: "assistant",
    content: step.text,
    reasoning: step.reasoning,
    // A copy: the step may take more calls later, and this message is never changed.
    toolCalls: step.calls.length === 0 ? NO_CALLS : [...step.calls],
  };
  const answers = step.calls.map(
    (call, index): ChatMessage => ({
      role: "tool",
      toolCallId: call.id,
      content: step.outputs?.get(index) ?? CANCELLED_TOOL_OUTPUT,
    }),
  );
  return [assistant, ...answers];
}
