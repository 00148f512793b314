/**
 * grep's line matching, in a worker thread under a time budget. A regex that backtracks for
 * long then costs only that thread: the event loop stays free for every session, and a cancel
 * or the end of the budget terminates the thread.
 *
 * The worker is started from `grepWorkerMain`'s source text through a Blob URL rather than
 * from a file: a worker file would have to be named as an extra entrypoint of every
 * `bun build --compile` of dsh, and a build without it would ship a grep that cannot start.
 */
import * as v from "valibot";
import { TimeLimitError } from "./errors.ts";
import { grepWorkerMain } from "./grep-worker.ts";
import type { LineMatch, MatchReply, MatchRequest } from "./grep-worker.ts";

/** Default time one grep call may spend matching, summed over its batches. */
export const MATCH_BUDGET_MS = 10_000;

const Reply = v.object({
  files: v.array(v.array(v.object({ line: v.number(), text: v.string() }))),
});

export interface LineMatcherOptions {
  /** The compiled pattern; its source and flags are sent to the worker. */
  readonly regex: RegExp;
  /** The pattern as the model wrote it, for messages. */
  readonly pattern: string;
  /** Characters kept of a matching line. */
  readonly lineChars: number;
  readonly budgetMs: number;
  readonly signal: AbortSignal;
}

/** Matches texts in a worker started on first use; dispose terminates it. */
export interface LineMatcher extends Disposable {
  /**
   * The matching lines of each file's bytes, in order, at most `limit` per file. The bytes are
   * handed over to the worker (their buffers are detached). Rejects with the signal's reason
   * on abort and with `TimeLimitError` once the budget is spent; either terminates the worker.
   */
  match(files: readonly Uint8Array[], limit: number): Promise<readonly (readonly LineMatch[])[]>;
}

/** Creates a matcher; it starts no thread until `match` has something to match. */
export function createLineMatcher(options: LineMatcherOptions): LineMatcher {
  let thread: { worker: Worker; url: string } | undefined;
  let remainingMs = options.budgetMs;
  // Disposal settles a match still in flight, so no timer or listener outlives the matcher.
  const disposed = new AbortController();
  const signal = AbortSignal.any([options.signal, disposed.signal]);
  const stop = () => {
    disposed.abort(new Error("grep matcher disposed"));
    if (thread === undefined) return;
    thread.worker.terminate();
    URL.revokeObjectURL(thread.url);
    thread = undefined;
  };
  const start = (): Worker => {
    if (thread !== undefined) return thread.worker;
    const source = new Blob([`(${grepWorkerMain.toString()})();`], { type: "text/javascript" });
    const url = URL.createObjectURL(source);
    thread = { worker: new Worker(url), url };
    return thread.worker;
  };
  const timeLimit = () =>
    new TimeLimitError(
      `grep stopped: /${options.pattern}/ took over ${seconds(options.budgetMs)} to match, so it ` +
        "likely backtracks without end (nested quantifiers such as (a+)+); simplify the pattern " +
        "or narrow the path or glob",
    );
  return {
    async match(files, limit) {
      signal.throwIfAborted();
      if (files.length === 0) return [];
      if (remainingMs <= 0) throw timeLimit();
      const owned = files.map(ownBuffer);
      const request: MatchRequest = {
        source: options.regex.source,
        flags: options.regex.flags,
        limit,
        lineChars: options.lineChars,
        files: owned,
      };
      const transfer = owned.map((bytes) => bytes.buffer);
      const started = performance.now();
      try {
        const reply = await exchange(start(), request, transfer, remainingMs, signal);
        return reply.files;
      } catch (error) {
        stop();
        throw error === TIMED_OUT ? timeLimit() : error;
      } finally {
        remainingMs -= performance.now() - started;
      }
    },
    [Symbol.dispose]: stop,
  };
}

const TIMED_OUT = Symbol("timed out");

/** Posts one request and waits for its reply, the abort, the time limit or a worker error. */
function exchange(
  worker: Worker,
  request: MatchRequest,
  transfer: ArrayBuffer[],
  timeoutMs: number,
  signal: AbortSignal,
): Promise<MatchReply> {
  const { promise, resolve, reject } = Promise.withResolvers<MatchReply>();
  const onMessage = (event: MessageEvent) => {
    const reply = v.safeParse(Reply, event.data);
    if (reply.success) resolve(reply.output);
    else reject(new Error("grep worker: malformed reply"));
  };
  const onError = (event: ErrorEvent) => reject(new Error(`grep worker failed: ${event.message}`));
  const onAbort = () => reject(signal.reason);
  const timer = setTimeout(() => reject(TIMED_OUT), timeoutMs);
  worker.addEventListener("message", onMessage);
  worker.addEventListener("error", onError);
  signal.addEventListener("abort", onAbort, { once: true });
  worker.postMessage(request, transfer);
  return promise.finally(() => {
    clearTimeout(timer);
    worker.removeEventListener("message", onMessage);
    worker.removeEventListener("error", onError);
    signal.removeEventListener("abort", onAbort);
  });
}

/** The bytes in a buffer of their own, which can be transferred without taking others along. */
function ownBuffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const whole =
    bytes.buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength;
  return whole ? new Uint8Array(bytes.buffer) : bytes.slice();
}

/** "0.3 s", "10 s". */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
