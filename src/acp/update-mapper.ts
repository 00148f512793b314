/**
 * Agent events → `session/update` payloads, in order: the one mapping of every notification,
 * for live turns and for replay alike (replay feeds it the live form of each logged event).
 * Stateful per session: it remembers each open tool call's intent so progress and results
 * render the way the call was announced, and closes calls that never got a result when their
 * turn ends (a client would otherwise show them running forever).
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { LiveEvent, UserContent } from "../agent/types.ts";
import type { RenderIntent } from "../render/intent.ts";
import { compactionUpdates } from "./compaction-updates.ts";
import { userBlock } from "./prompt-content.ts";
import {
  type PresentOptions,
  presentCall,
  presentOutputSoFar,
  presentResult,
  presentStillRunning,
  presentTerminalExit,
  presentTerminalOutput,
  textContent,
} from "./present.ts";

/** Without terminal cards, running output is resent as text at most this often. */
export const TEXT_PROGRESS_INTERVAL_MS = 500;
/** Without terminal cards, running output shows at most this many trailing characters. */
const TEXT_PROGRESS_TAIL = 16 * 1024;

export interface UpdateMapperOptions extends PresentOptions {
  /** The client advertised `session.compaction`: compactions become `compaction_update`s. */
  readonly compaction?: boolean;
  /** Clock for throttling text progress; `performance.now` unless a test pins it. */
  readonly now?: () => number;
  /** The client takes `notice` updates; otherwise a notice during a turn is a message line. */
  readonly notices?: boolean;
}

/**
 * What the mapper maps: the agent's live events, and the user's message, which only replay
 * sends (live, the client shows the prompt it sent itself).
 */
export type MappedEvent =
  | LiveEvent
  | {
      readonly type: "user_message";
      readonly turnId: string;
      readonly content: readonly UserContent[];
    };

export interface UpdateMapper {
  /** The updates one event becomes (often one, sometimes none or two). */
  map(event: MappedEvent): acp.SessionUpdate[];
  /** Final `failed` updates for every call still open (end of a replayed log). */
  closeAll(): acp.SessionUpdate[];
}

interface OpenCall {
  readonly turnId: string;
  readonly intent: RenderIntent;
  streamed: boolean;
  /** Tail of the output so far, kept only for text progress. */
  tail: string;
  lastSent: number;
}

/** Creates a mapper for one session. */
export function createUpdateMapper(options: UpdateMapperOptions): UpdateMapper {
  const now = options.now ?? (() => performance.now());
  const open = new Map<string, OpenCall>();
  /** Calls whose command still runs in the background after their result: their live terminals. */
  const running = new Set<string>();
  /** Calls shown as a plan rather than a tool call: the rest of their life is not shown. */
  const quiet = new Set<string>();
  const deferred: Extract<LiveEvent, { type: "notice" }>[] = [];
  const calls: Calls = { open, running, quiet, options };

  const close = (callId: string, call: OpenCall): acp.SessionUpdate[] => {
    open.delete(callId);
    return presentResult(
      {
        callId,
        callIntent: call.intent,
        isError: true,
        // A task's card keeps the steps it showed.
        output: call.intent.type === "terminal" ? "" : call.tail,
        streamed: call.streamed,
      },
      options,
    );
  };

  const progress = (callId: string, chunk: string): acp.SessionUpdate[] => {
    const call = open.get(callId);
    if (call === undefined || chunk === "") return [];
    // A card that is no terminal (a task's) shows its progress lines so far as its content.
    if (call.intent.type !== "terminal") {
      call.tail = (call.tail + chunk).slice(-TEXT_PROGRESS_TAIL);
      return [
        {
          sessionUpdate: "tool_call_update",
          toolCallId: callId,
          content: [textContent(call.tail)],
        },
      ];
    }
    if (options.terminalOutput) {
      call.streamed = true;
      return [presentTerminalOutput(callId, chunk)];
    }
    call.tail = (call.tail + chunk).slice(-TEXT_PROGRESS_TAIL);
    const at = now();
    if (at - call.lastSent < TEXT_PROGRESS_INTERVAL_MS) return [];
    call.lastSent = at;
    return [presentOutputSoFar(callId, call.intent, call.tail)];
  };

  return {
    map(event) {
      switch (event.type) {
        case "turn_start":
          // Notices from outside a turn open the next answer, for clients without notices.
          return deferred.splice(0).map(noticeLine);
        case "user_message":
          return event.content.map((content) => ({
            sessionUpdate: "user_message_chunk",
            content: userBlock(content),
          }));
        case "reasoning_delta":
          return event.text === "" ? [] : [chunk("agent_thought_chunk", event.text)];
        case "text_delta":
          return event.text === "" ? [] : [chunk("agent_message_chunk", event.text)];
        case "tool_call":
          if (event.intent.type === "plan") {
            quiet.add(event.callId);
            return [{ sessionUpdate: "plan", entries: event.intent.entries }];
          }
          open.set(event.callId, {
            turnId: event.turnId,
            intent: event.intent,
            streamed: false,
            tail: "",
            lastSent: now(),
          });
          return [presentCall(event, options)];
        case "tool_start":
          return open.has(event.callId)
            ? [
                {
                  sessionUpdate: "tool_call_update",
                  toolCallId: event.callId,
                  status: "in_progress",
                },
              ]
            : [];
        case "tool_progress":
          return running.has(event.callId)
            ? backgroundProgress(calls, event)
            : progress(event.callId, event.chunk);
        case "tool_result":
          return result(calls, event);
        case "usage":
          return [
            {
              sessionUpdate: "usage_update",
              // What the context holds after this step: the prompt plus what the model just wrote.
              used: tokenCount(event.contextUsed),
              size: tokenCount(event.contextWindow),
              cost: { amount: costAmount(event.costUsd), currency: "USD" },
            },
          ];
        case "notice":
          if (options.notices === true) return [noticeUpdate(event)];
          if (event.turnId !== undefined) return [noticeLine(event)];
          deferred.push(event);
          return [];
        case "compaction":
          return compactionUpdates(event, options.compaction === true);
        case "turn_end":
          quiet.clear();
          return [...open]
            .filter(([, call]) => call.turnId === event.turnId)
            .flatMap(([id, call]) => close(id, call));
        default: {
          const exhaustive: never = event;
          return exhaustive;
        }
      }
    },
    closeAll() {
      // A replayed background command's terminal is over: nothing runs it any more.
      const ended = options.terminalOutput
        ? [...running].map((id) => presentTerminalExit(id, { code: null, signal: null }))
        : [];
      running.clear();
      return [...[...open].flatMap(([id, call]) => close(id, call)), ...ended];
    },
  };
}

function chunk(
  kind: "agent_thought_chunk" | "agent_message_chunk",
  text: string,
): acp.SessionUpdate {
  return { sessionUpdate: kind, content: { type: "text", text } };
}

/** A notice as a `notice` update, for clients that take them. */
function noticeUpdate(event: Extract<LiveEvent, { type: "notice" }>): acp.SessionUpdate {
  const { severity, title, description } = event;
  return { sessionUpdate: "notice", severity, title, ...(description ? { description } : {}) };
}

/** A notice as a quoted line of the agent's message, for clients without notices. */
function noticeLine(event: Extract<LiveEvent, { type: "notice" }>): acp.SessionUpdate {
  const description = event.description === undefined ? "" : `: ${event.description}`;
  return chunk("agent_message_chunk", `\n> ${event.title}${description}\n\n`);
}

/** A finite, non-negative amount. */
function costAmount(usd: number): number {
  return Number.isFinite(usd) && usd > 0 ? usd : 0;
}

/** The schema wants a non-negative integer. */
function tokenCount(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.trunc(n) : 0;
}

/** The cards a session's mapper has open, and what it was made with. */
interface Calls {
  readonly open: Map<string, OpenCall>;
  /** Calls whose command still runs in the background after their result: their live terminals. */
  readonly running: Set<string>;
  /** Calls shown as a plan rather than a tool call: the rest of their life is not shown. */
  readonly quiet: Set<string>;
  readonly options: UpdateMapperOptions;
}

/** A background command's output goes on to its terminal card, then its exit. */
function backgroundProgress(
  { running, options }: Calls,
  event: Extract<LiveEvent, { type: "tool_progress" }>,
): acp.SessionUpdate[] {
  const updates =
    options.terminalOutput && event.chunk !== ""
      ? [presentTerminalOutput(event.callId, event.chunk)]
      : [];
  if (event.exit === undefined) return updates;
  running.delete(event.callId);
  return options.terminalOutput
    ? [...updates, presentTerminalExit(event.callId, event.exit)]
    : updates;
}

/** A call's result: its card's last update, or a background command's card kept live. */
function result(
  { open, running, quiet, options }: Calls,
  event: Extract<LiveEvent, { type: "tool_result" }>,
): acp.SessionUpdate[] {
  // The plan went out with the call; a client never saw a card to update.
  if (quiet.delete(event.callId)) return [];
  const call = open.get(event.callId);
  open.delete(event.callId);
  if (
    !event.isError &&
    event.intent.type === "terminal" &&
    event.intent.exit === undefined &&
    call?.intent.type === "terminal"
  ) {
    running.add(event.callId);
    return [presentStillRunning(event.callId, event.intent, options)];
  }
  return presentResult(
    {
      callId: event.callId,
      callIntent: call?.intent ?? event.intent,
      isError: event.isError,
      output: event.output,
      intent: event.intent,
      streamed: call?.streamed ?? false,
    },
    options,
  );
}
