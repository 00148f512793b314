/**
 * Waits that end the moment their signal aborts: the one place where a timer or a pending
 * promise meets an AbortSignal, so a cancelled turn never sits out a backoff, a pause or a
 * start-up. Depends on nothing; any layer may import it.
 */

/**
 * Waits `ms`, or less when `signal` aborts; resolves `false` when it was aborted (at once when
 * it already was), `true` when the time ran out. Never rejects; the timer is cleared on abort.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  const { promise, resolve } = Promise.withResolvers<boolean>();
  const onAbort = () => {
    clearTimeout(timer);
    resolve(false);
  };
  const timer = setTimeout(() => {
    signal.removeEventListener("abort", onAbort);
    resolve(true);
  }, ms);
  signal.addEventListener("abort", onAbort, { once: true });
  return promise;
}

/** What `untilAborted` resolves with when the signal aborted first. */
export const ABORTED: unique symbol = Symbol("aborted");

/**
 * `work`'s value, or ABORTED as soon as `signal` aborts (at once when it already has), so a
 * peer that never answers cannot hold a cancelled turn. Rejects when `work` rejects first; a
 * rejection after the abort is ignored.
 */
export async function untilAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
): Promise<T | typeof ABORTED> {
  work.catch(() => {});
  if (signal.aborted) return ABORTED;
  const aborted = Promise.withResolvers<typeof ABORTED>();
  const onAbort = () => aborted.resolve(ABORTED);
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await Promise.race([work, aborted.promise]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
