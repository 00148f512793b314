/**
 * Waiting on a model endpoint that has gone quiet. One limit, the stream timeout, bounds how
 * long a step waits for the next byte (response headers, stream data or keep-alive comments);
 * while it waits, the step reports the stall to the user now and then.
 */
import type { LlmEvent } from "./types.ts";

/** The default stream timeout: the longest silence a step waits through before it gives up. */
export const DEFAULT_STREAM_TIMEOUT_MS = 120_000;

/** The first stall notice comes after this much silence, the later ones this far apart times 3. */
const FIRST_NOTICE_MS = 10_000;

export interface StallWatch {
  /** A byte arrived: the silence starts over. */
  touch(): void;
  /** Waits for `pending`, yielding a stall notice each time the silence passes a mark. */
  wait<T>(pending: Promise<T>): AsyncGenerator<LlmEvent, T>;
  /** Ends the watch: no more notices, and `onLimit` is never called. Idempotent. */
  stop(): void;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Creates the watch of one try; `limitMs` is the stream timeout, and `onLimit` runs once when
 * the silence reaches it. One timer serves the whole try: a byte only moves the start of the
 * silence, so a streamed chunk costs no timer of its own; the timer, when it fires early,
 * looks at the silence and sets itself for what is left.
 */
export function createStallWatch(host: string, limitMs: number, onLimit: () => void): StallWatch {
  let since = performance.now();
  let notices = 0;
  /** Notices whose mark has passed and that no wait has yielded yet. */
  let due = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  /** Wakes the wait in progress, if any, when a mark passes. */
  let wake: (() => void) | undefined;
  const firstMs = Math.min(FIRST_NOTICE_MS, limitMs / 4);

  /** Milliseconds of silence at which the next notice is due. */
  const nextMark = () => firstMs * (1 + 3 * notices);
  const silence = () => performance.now() - since;

  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(check, Math.max(0, Math.min(nextMark(), limitMs) - silence()));
  };
  const check = () => {
    timer = undefined;
    if (stopped) return;
    const quiet = silence();
    if (quiet >= limitMs) {
      stopped = true;
      onLimit();
      return;
    }
    if (quiet >= nextMark()) {
      notices += 1;
      due += 1;
      wake?.();
    }
    arm();
  };
  arm();

  return {
    touch() {
      since = performance.now();
      due = 0;
      // After a notice the timer is set for a later mark; the first mark comes sooner again.
      if (notices > 0 && !stopped) {
        notices = 0;
        arm();
      }
    },
    async *wait<T>(pending: Promise<T>): AsyncGenerator<LlmEvent, T> {
      const settled = pending.then(
        (value): Outcome<T> => ({ ok: true, value }),
        (error: unknown): Outcome<T> => ({ ok: false, error }),
      );
      for (;;) {
        while (due > 0) {
          due -= 1;
          yield {
            type: "notice",
            severity: "warning",
            title: `Waiting for ${host}: nothing received for ${seconds(silence())}`,
            description: `dsh gives up after ${seconds(limitMs)} of silence (DSH_STREAM_TIMEOUT).`,
          };
        }
        const outcome = await new Promise<Outcome<T> | undefined>((resolve) => {
          wake = () => resolve(undefined);
          void settled.then(resolve);
        });
        wake = undefined;
        if (outcome === undefined) continue;
        if (outcome.ok) return outcome.value;
        throw outcome.error;
      }
    },
    stop() {
      stopped = true;
      wake = undefined;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** A duration as people read it: "850 ms", "4 s", "120 s". */
export function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`;
}
