/**
 * When and how long to wait before trying a model request again. Retrying is only safe while
 * nothing of the step has reached the caller: a replay after partial output would duplicate
 * chunks already shown.
 */
import type { LlmErrorCode } from "./types.ts";

export interface RetryPolicy {
  /** Tries in all, the first included. */
  readonly attempts: number;
  /** The first backoff; each later one doubles. */
  readonly baseDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 500 };

/** The longest backoff between two tries, whatever the attempt number. */
const MAX_BACKOFF_MS = 8_000;

/** Failures that may pass on their own; the others (auth, balance, bad request) never do. */
export function isRetryable(code: LlmErrorCode): boolean {
  return (
    code === "rate_limit" ||
    code === "overloaded" ||
    code === "server" ||
    code === "network" ||
    code === "premature_eof"
  );
}

/**
 * The wait before try `attempt + 1` (attempt counts from 1): the server's `Retry-After` when it
 * gave one, else exponential backoff with full jitter over its upper half.
 */
export function backoffMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const ceiling = Math.min(MAX_BACKOFF_MS, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
