/**
 * Rewinds as the log tells them: a `rewind` event hides the events from its `fromSeq` up to
 * itself from everything that reads the conversation (the model's context, replay, a resumed
 * chat). Spans are either disjoint or one holds the other, since a rewind can only name a turn
 * the conversation still shows.
 */
import type { SessionEvent } from "./events.ts";
import { type Turn, foldTurns } from "./folds.ts";

/** The events the conversation still shows: those in no rewound span, and no rewind itself. */
export function withoutRewound(events: readonly SessionEvent[]): SessionEvent[] {
  let hiddenFrom = Number.POSITIVE_INFINITY;
  const kept: SessionEvent[] = [];
  // Backwards: a rewind hides what lies between its target and itself.
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i] as SessionEvent;
    if (event.type === "rewind") {
      hiddenFrom = Math.min(hiddenFrom, event.fromSeq);
      continue;
    }
    if (event.seq < hiddenFrom) kept.push(event);
  }
  return kept.reverse();
}

/** Whether the log holds a rewind at all (most do not: their events are shown as they are). */
export function hasRewind(events: readonly SessionEvent[]): boolean {
  return events.some((event) => event.type === "rewind");
}

/** The prompt turns the conversation still shows, oldest first (compactions are no prompt). */
export function visiblePromptTurns(events: readonly SessionEvent[]): Turn[] {
  return foldTurns(withoutRewound(events)).filter((turn) =>
    turn.events.some((event) => event.type === "user_message"),
  );
}
