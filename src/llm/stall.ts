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
}

/** Creates the watch of one try; `limitMs` is the stream timeout, for the notices' wording. */
export function createStallWatch(host: string, limitMs: number): StallWatch {
  let since = performance.now();
  let notices = 0;
  const firstMs = Math.min(FIRST_NOTICE_MS, limitMs / 4);

  /** Milliseconds of silence at which the next notice is due. */
  const nextMark = () => firstMs * (1 + 3 * notices);

  return {
    touch() {
      since = performance.now();
      notices = 0;
    },
    async *wait<T>(pending: Promise<T>): AsyncGenerator<LlmEvent, T> {
      const settled = pending.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      for (;;) {
        const due = Math.max(0, nextMark() - (performance.now() - since));
        const mark = Promise.withResolvers<undefined>();
        const timer = setTimeout(() => mark.resolve(undefined), due);
        const outcome = await Promise.race([settled, mark.promise]);
        clearTimeout(timer);
        if (outcome !== undefined) {
          if (outcome.ok) return outcome.value;
          throw outcome.error;
        }
        notices += 1;
        yield {
          type: "notice",
          severity: "warning",
          title: `Waiting for ${host}: nothing received for ${seconds(performance.now() - since)}`,
          description: `dsh gives up after ${seconds(limitMs)} of silence (DSH_STREAM_TIMEOUT).`,
        };
      }
    },
  };
}

/** A duration as people read it: "850 ms", "4 s", "120 s". */
export function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`;
}
