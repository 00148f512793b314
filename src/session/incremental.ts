/**
 * Folds over a session's append-only event array that cost only what was appended since the
 * last call: a long session's request is assembled from running state, not from its whole log.
 */
import type { SessionEvent } from "./events.ts";

/** Folds one event into `state`, which it may change; `index` is the event's place in `events`. */
export type FoldStep<S> = (
  state: S,
  event: SessionEvent,
  events: readonly SessionEvent[],
  index: number,
) => void;

interface Memo<S> {
  readonly state: S;
  /** How many events of the array `state` holds. */
  seen: number;
  /** The last of them, to notice an array changed other than by appending. */
  last: SessionEvent | undefined;
}

/**
 * A fold that keeps its state per event array (held weakly, so it goes with the array) and on
 * each call folds only the events appended since the last one. An array that shrank, or holds
 * another event where the last folded one was, is folded anew from `init`. The returned state is
 * the fold's own: callers read it and never change it.
 */
export function incrementalFold<S>(
  init: () => S,
  step: FoldStep<S>,
): (events: readonly SessionEvent[]) => S {
  const memos = new WeakMap<readonly SessionEvent[], Memo<S>>();
  return (events) => {
    let memo = memos.get(events);
    if (memo === undefined || !onlyGrew(memo, events)) {
      memo = { state: init(), seen: 0, last: undefined };
      memos.set(events, memo);
    }
    for (let index = memo.seen; index < events.length; index++) {
      const event = events[index] as SessionEvent;
      step(memo.state, event, events, index);
      memo.last = event;
    }
    memo.seen = events.length;
    return memo.state;
  };
}

function onlyGrew<S>(memo: Memo<S>, events: readonly SessionEvent[]): boolean {
  return events.length >= memo.seen && (memo.seen === 0 || events[memo.seen - 1] === memo.last);
}
