/**
 * A session's log → the `session/update`s that rebuild its transcript in a client
 * (`session/load`). Every logged event goes through the mapper of live turns as the live event
 * it stands for (`liveEventOf`), so a replayed turn looks exactly like it did live, each call
 * ending with its logged status and result intent.
 */
import { hasRewind, withoutRewound } from "../session/rewind.ts";
import type * as acp from "@agentclientprotocol/sdk";
import { type LiveEvent, liveEventOf } from "../agent/types.ts";
import { contextUsed, foldCost } from "../session/context.ts";
import type { SessionEvent } from "../session/events.ts";
import { type MappedEvent, type UpdateMapperOptions, createUpdateMapper } from "./update-mapper.ts";

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
  logged: readonly SessionEvent[],
  options: UpdateMapperOptions,
): Generator<acp.SessionUpdate, void, undefined> {
  // The conversation as it stands: turns a rewind took back are not shown again.
  const events = hasRewind(logged) ? withoutRewound(logged) : logged;
  const mapper = createUpdateMapper({ ...options, now: () => 0 });
  // Each plan replaces the one before: only the latest is the session's plan.
  const latestPlan = events.findLastIndex(
    (event) => event.type === "tool_call" && event.intent.type === "plan",
  );
  for (const [index, event] of events.entries()) {
    const replayed = replayedEvent(event);
    if (replayed === undefined) continue;
    for (const update of mapper.map(replayed)) {
      if (update.sessionUpdate !== "plan" || index === latestPlan) yield update;
    }
  }
  // A turn with a start and no end was interrupted by a crash: its open calls failed.
  yield* mapper.closeAll();
  const meter = usageNow(events);
  if (meter !== undefined) yield* mapper.map(meter);
}

/** What the mapper takes for a logged event: the user's message, or the event's live form. */
function replayedEvent(event: SessionEvent): MappedEvent | undefined {
  if (event.type !== "user_message") return liveEventOf(event);
  return { type: "user_message", turnId: event.turnId, content: event.content };
}

/** The context meter and the session's cost as of the end of the log, when it knows them. */
function usageNow(events: readonly SessionEvent[]): LiveEvent | undefined {
  const last = events.findLast((event) => event.type === "usage" && event.task === undefined);
  if (last?.type !== "usage" || last.contextWindow === undefined) return undefined;
  const { turnId, promptTokens, completionTokens, contextWindow } = last;
  return {
    type: "usage",
    turnId,
    usage: { promptTokens, completionTokens },
    contextWindow,
    contextUsed: contextUsed(events),
    costUsd: foldCost(events),
  };
}
