/**
 * A session's log → the `session/update`s that rebuild its transcript in a client
 * (`session/load`). Tool calls go through the same mapper as live turns, so a replayed call
 * looks exactly like it did live, ending with its logged status and result intent.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { SessionEvent } from "../session/events.ts";
import type { UserContent } from "../session/events.ts";
import type { PresentOptions } from "./present.ts";
import { createUpdateMapper } from "./update-mapper.ts";

/** The updates that replay `events`, in log order. Pure: touches neither disk nor client. */
export function replayUpdates(
  events: readonly SessionEvent[],
  options: PresentOptions,
): acp.SessionUpdate[] {
  const mapper = createUpdateMapper({ ...options, now: () => 0 });
  const updates: acp.SessionUpdate[] = [];
  for (const event of events) {
    switch (event.type) {
      case "user_message":
        for (const content of event.content) {
          updates.push({ sessionUpdate: "user_message_chunk", content: userBlock(content) });
        }
        break;
      case "reasoning":
        if (event.text !== "") {
          updates.push({
            sessionUpdate: "agent_thought_chunk",
            content: { type: "text", text: event.text },
          });
        }
        break;
      case "assistant_text":
        if (event.text !== "") {
          updates.push({
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: event.text },
          });
        }
        break;
      case "tool_call":
        updates.push(
          ...mapper.map({
            type: "tool_call",
            turnId: event.turnId,
            callId: event.callId,
            name: event.name,
            rawInput: parseArguments(event.arguments),
            intent: event.intent,
          }),
        );
        break;
      case "tool_result":
        updates.push(...mapper.map({ ...event, type: "tool_result" }));
        break;
      case "turn_end":
        updates.push(
          ...mapper.map({ type: "turn_end", turnId: event.turnId, reason: event.reason }),
        );
        break;
      case "turn_start":
      case "prompt_submit":
      case "usage":
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
  // A turn with a start and no end was interrupted by a crash: its open calls failed.
  updates.push(...mapper.closeAll());
  // Each plan replaces the one before: only the latest is the session's plan.
  const latestPlan = updates.findLastIndex((u) => u.sessionUpdate === "plan");
  return updates.filter((u, index) => u.sessionUpdate !== "plan" || index === latestPlan);
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

/** The model's argument text as a value for `rawInput` (as shown live); non-JSON stays text. */
export function parseArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
