/**
 * A compaction as the client sees it: `compaction_update`s when the client advertised
 * `session.compaction`, else an agent message saying the context was compacted (or why it
 * could not be). The same mapping serves live turns and replay.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { LiveEvent } from "../agent/types.ts";

type CompactionEvent = Extract<LiveEvent, { type: "compaction" }>;

/**
 * @param event the compaction's state
 * @param supported whether the client takes `compaction_update`
 */
export function compactionUpdates(
  event: Omit<CompactionEvent, "type" | "turnId">,
  supported: boolean,
): acp.SessionUpdate[] {
  if (supported) {
    return [
      {
        sessionUpdate: "compaction_update",
        compactionId: event.compactionId,
        status: event.status,
        ...(event.summary === undefined
          ? {}
          : { summary: [{ type: "text", text: event.summary }] }),
        ...(event.error === undefined ? {} : { error: event.error }),
      },
    ];
  }
  const text = fallbackText(event);
  return text === undefined
    ? []
    : [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text } }];
}

function fallbackText(event: Omit<CompactionEvent, "type" | "turnId">): string | undefined {
  switch (event.status) {
    case "completed": {
      const sizes =
        event.tokensBefore === undefined || event.tokensAfter === undefined
          ? ""
          : ` (about ${tokens(event.tokensBefore)} → ${tokens(event.tokensAfter)} tokens)`;
      return `\n\n*Context compacted: the earlier conversation is now a summary${sizes}.*\n\n`;
    }
    case "failed":
      return `\n\n*The context could not be compacted: ${event.error ?? "unknown error"}.*\n\n`;
    case "in_progress":
    case "cancelled":
      return undefined;
    default: {
      const exhaustive: never = event.status;
      return exhaustive;
    }
  }
}

function tokens(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}
