/**
 * Live agent events → `session/update` payloads, in order. Stateful per session: it remembers
 * each open tool call's intent so progress and results render the way the call was announced,
 * and closes calls that never got a result when their turn ends (a client would otherwise
 * show them running forever).
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { LiveEvent } from "../agent/types.ts";
import type { RenderIntent } from "../tools/intent.ts";
import { compactionUpdates } from "./compaction-updates.ts";
import {
  type PresentOptions,
  presentCall,
  presentOutputSoFar,
  presentResult,
  presentTerminalOutput,
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
}

export interface UpdateMapper {
  /** The updates one event becomes (often one, sometimes none or two). */
  map(event: LiveEvent): acp.SessionUpdate[];
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

  const close = (callId: string, call: OpenCall): acp.SessionUpdate[] => {
    open.delete(callId);
    return presentResult(
      { callId, callIntent: call.intent, isError: true, output: "", streamed: call.streamed },
      options,
    );
  };

  const progress = (callId: string, chunk: string): acp.SessionUpdate[] => {
    const call = open.get(callId);
    if (call === undefined || call.intent.type !== "terminal" || chunk === "") return [];
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
          return [];
        case "reasoning_delta":
          return event.text === "" ? [] : [chunk("agent_thought_chunk", event.text)];
        case "text_delta":
          return event.text === "" ? [] : [chunk("agent_message_chunk", event.text)];
        case "tool_call":
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
          return progress(event.callId, event.chunk);
        case "tool_result": {
          const call = open.get(event.callId);
          open.delete(event.callId);
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
        case "compaction":
          return compactionUpdates(event, options.compaction === true);
        case "turn_end":
          return [...open]
            .filter(([, call]) => call.turnId === event.turnId)
            .flatMap(([id, call]) => close(id, call));
        case "notice":
          // The form every client shows: a line of the turn's answer.
          return event.turnId === undefined
            ? []
            : [chunk("agent_message_chunk", noticeLine(event))];
        default: {
          const exhaustive: never = event;
          return exhaustive;
        }
      }
    },
    closeAll() {
      return [...open].flatMap(([id, call]) => close(id, call));
    },
  };
}

function chunk(
  kind: "agent_thought_chunk" | "agent_message_chunk",
  text: string,
): acp.SessionUpdate {
  return { sessionUpdate: kind, content: { type: "text", text } };
}

/** A finite, non-negative amount. */
function costAmount(usd: number): number {
  return Number.isFinite(usd) && usd > 0 ? usd : 0;
}

/** The schema wants a non-negative integer. */
function tokenCount(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.trunc(n) : 0;
}

function noticeLine(notice: { readonly title: string; readonly description?: string }): string {
  const description = notice.description === undefined ? "" : `: ${notice.description}`;
  return `\n> ${notice.title}${description}\n\n`;
}
