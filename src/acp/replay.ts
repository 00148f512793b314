/**
 * A session's log → the `session/update`s that rebuild its transcript in a client
 * (`session/load`). Tool calls go through the same mapper as live turns, so a replayed call
 * looks exactly like it did live, ending with its logged status and result intent.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { SessionEvent } from "../session/events.ts";
import type { UserContent } from "../session/events.ts";
import { contextUsed, foldCost } from "../session/context.ts";
import { isSettingEvent } from "../session/settings.ts";
import { parseRawInput } from "../tools/raw-arguments.ts";
import { compactionUpdates } from "./compaction-updates.ts";
import { createUpdateMapper, type UpdateMapperOptions } from "./update-mapper.ts";

/**
 * The updates that replay `events`, in log order. Pure: touches neither disk nor client. The
 * whole conversation is replayed, compacted or not; a compaction shows where it happened.
 */
export function replayUpdates(
  events: readonly SessionEvent[],
  options: UpdateMapperOptions,
): acp.SessionUpdate[] {
  return [...replayStream(events, options)];
}

/**
 * The same updates as `replayUpdates`, one event at a time, so a long log's transcript is
 * never held whole.
 */
export function* replayStream(
  events: readonly SessionEvent[],
  options: UpdateMapperOptions,
): Generator<acp.SessionUpdate, void, undefined> {
  const mapper = createUpdateMapper({ ...options, now: () => 0 });
  // Each plan replaces the one before: only the latest is the session's plan.
  const latestPlan = events.findLastIndex(
    (event) => event.type === "tool_call" && event.intent.type === "plan",
  );
  for (const [index, event] of events.entries()) {
    if (isSettingEvent(event)) continue;
    switch (event.type) {
      case "user_message":
        for (const content of event.content) {
          yield { sessionUpdate: "user_message_chunk", content: userBlock(content) };
        }
        break;
      case "reasoning":
        if (event.text !== "") {
          yield {
            sessionUpdate: "agent_thought_chunk",
            content: { type: "text", text: event.text },
          };
        }
        break;
      case "assistant_text":
        if (event.text !== "") {
          yield {
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: event.text },
          };
        }
        break;
      case "tool_call": {
        const updates = mapper.map({
          type: "tool_call",
          turnId: event.turnId,
          callId: event.callId,
          name: event.name,
          rawInput: parseRawInput(event.arguments),
          intent: event.intent,
        });
        for (const update of updates) {
          if (update.sessionUpdate !== "plan" || index === latestPlan) yield update;
        }
        break;
      }
      case "tool_result":
        yield* mapper.map({ ...event, type: "tool_result" });
        break;
      case "turn_end":
        yield* mapper.map({ type: "turn_end", turnId: event.turnId, reason: event.reason });
        break;
      case "compaction":
        yield* compactionUpdates(
          {
            compactionId: event.compactionId,
            status: "completed",
            summary: event.summary,
            tokensBefore: event.tokensBefore,
            tokensAfter: event.tokensAfter,
          },
          options.compaction === true,
        );
        break;
      case "turn_start":
      case "prompt_submit":
      case "usage":
        break;
      default: {
        const exhaustive: never = event;
        return exhaustive;
      }
    }
  }
  // A turn with a start and no end was interrupted by a crash: its open calls failed.
  yield* mapper.closeAll();
  yield* usageNow(events);
}

/** The context meter and the session's cost as of the end of the log, when it knows them. */
function usageNow(events: readonly SessionEvent[]): acp.SessionUpdate[] {
  const last = events.findLast((event) => event.type === "usage");
  if (last?.type !== "usage" || last.contextWindow === undefined) return [];
  return [
    {
      sessionUpdate: "usage_update",
      used: Math.max(0, Math.trunc(contextUsed(events))),
      size: Math.max(0, Math.trunc(last.contextWindow)),
      cost: { amount: Math.max(0, foldCost(events)), currency: "USD" },
    },
  ];
}

/** How a replayed transcript shows an image the user sent (its bytes stay in the log). */
export const IMAGE_PLACEHOLDER = "[image]";

/** A logged user block as the ACP content block it came from (an image as a placeholder). */
export function userBlock(content: UserContent): acp.ContentBlock {
  switch (content.type) {
    case "text":
      return { type: "text", text: content.text };
    case "resource_link":
      return {
        type: "resource_link",
        uri: content.uri,
        name: content.name,
        ...(content.title == null ? {} : { title: content.title }),
        ...(content.mimeType == null ? {} : { mimeType: content.mimeType }),
      };
    case "resource":
      return {
        type: "resource",
        resource: {
          uri: content.uri,
          text: content.text,
          ...(content.mimeType == null ? {} : { mimeType: content.mimeType }),
        },
      };
    case "image":
      // The log keeps the image for the model; the transcript shows a short placeholder.
      return { type: "text", text: IMAGE_PLACEHOLDER };
    default: {
      const exhaustive: never = content;
      return exhaustive;
    }
  }
}
