/**
 * grep's readers and matchers: worker threads that each read and search batches of files, so
 * reading overlaps matching on every core and the event loop stays free. Each thread holds a
 * few batches at once, taking the next as one is answered, and the reports come back in file
 * order, so results stay deterministic and grep can stop at its match cap. A cancel or the time budget terminates the
 * threads (a regex that backtracks for long then costs nothing more).
 *
 * The threads start from `searchWorkerMain`'s source text through a Blob URL rather than from
 * a file: a worker file would have to be named as an extra entrypoint of every
 * `bun build --compile` of dsh, and a build without it would ship a grep that cannot start.
 */
import * as v from "valibot";
import { TimeLimitError } from "../errors.ts";
import type { BatchReport, SearchRequest } from "./search-worker.ts";
import type { PathSource } from "./path-feed.ts";
import { searchWorkerMain } from "./search-worker.ts";
import { batchDirectories, fileReader } from "./worker-read.ts";
import { workerLibc } from "./worker-libc.ts";

/** Files per message to a thread: enough to amortise the round trip, small enough to balance. */
const BATCH_FILES = 160;
/** Batches a thread has in hand at once. */
const IN_FLIGHT = 4;

const Reply = v.object({
  status: v.instance(Uint8Array),
  identity: v.instance(BigUint64Array),
  moved: v.array(v.object({ file: v.number(), opened: v.string() })),
  matches: v.array(v.object({ file: v.number(), line: v.number(), text: v.string() })),
});

export interface FileSearcherOptions {
  readonly regex: RegExp;
  /** The pattern as the model wrote it, for messages. */
  readonly pattern: string;
  readonly lineChars: number;
  /** Files larger than this are reported too large and not read. */
  readonly maxBytes: number;
  /** Wall time the whole search may take before it stops with `TimeLimitError`. */
  readonly budgetMs: number;
  readonly signal: AbortSignal;
  /** Threads at most; default one per core, up to 4. */
  readonly threads?: number;
}

export interface FileSearcher extends Disposable {
  /**
   * Searches the paths `source` gives, handing each batch's report to `onBatch` in path order
   * (`first` is the index of the batch's first path). Stops dispatching once `onBatch` returns false. Rejects
   * with the signal's reason on abort and with `TimeLimitError` once the budget is spent.
   */
  search(
    source: PathSource,
    limit: number,
    onBatch: (report: BatchReport, first: number) => boolean,
  ): Promise<void>;
}

interface Thread {
  readonly worker: Worker;
  readonly url: string;
}

/**
 * Threads left by finished searches, reused by the next (a thread takes tens of milliseconds
 * to start): terminated after a short idle time, and never kept for a search that was
 * cancelled or ran out of time (its thread may still be deep in a regex).
 */
const idle: Thread[] = [];
let idleTimer: ReturnType<typeof setTimeout> | undefined;
const IDLE_MS = 30_000;

function release(threads: readonly Thread[]): void {
  idle.push(...threads);
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    for (const thread of idle.splice(0)) terminate(thread);
  }, IDLE_MS);
  // Idle threads never keep dsh running.
  idleTimer.unref?.();
  for (const thread of threads) thread.worker.unref();
}

function terminate(thread: Thread): void {
  thread.worker.terminate();
  URL.revokeObjectURL(thread.url);
}

/** Creates a searcher; threads start (or are reused) on first use, dispose lets them go. */
export function createFileSearcher(options: FileSearcherOptions): FileSearcher {
  const threads: Thread[] = [];
  let clean = false;
  const disposed = new AbortController();
  const signal = AbortSignal.any([options.signal, disposed.signal]);
  const stop = () => {
    disposed.abort(new Error("grep searcher disposed"));
    const mine = threads.splice(0);
    if (clean) release(mine);
    else for (const thread of mine) terminate(thread);
  };
  const spawn = () => {
    const reused = idle.pop();
    if (reused !== undefined) {
      reused.worker.ref();
      threads.push(reused);
      return reused.worker;
    }
    const text = `(${searchWorkerMain})(${fileReader}, ${batchDirectories}, ${workerLibc});`;
    const source = new Blob([text], { type: "text/javascript" });
    const url = URL.createObjectURL(source);
    const thread = { worker: new Worker(url), url };
    threads.push(thread);
    return thread.worker;
  };
  const timeLimit = () =>
    new TimeLimitError(
      `grep stopped: /${options.pattern}/ took over ${seconds(options.budgetMs)} to match, so it ` +
        "likely backtracks without end (nested quantifiers such as (a+)+); simplify the pattern " +
        "or narrow the path or glob",
    );

  return {
    async search(source, limit, onBatch) {
      signal.throwIfAborted();
      const deadline = performance.now() + options.budgetMs;
      const wanted = options.threads ?? Math.min(4, Math.max(1, navigator.hardwareConcurrency));
      const done = new Map<number, BatchReport>();
      const literal = requiredLiteral(options.regex);
      let taken = 0;
      let delivered = 0;
      let wantMore = true;
      const run = async (worker: () => Worker) => {
        while (wantMore) {
          const paths = await source.take(BATCH_FILES);
          if (paths.length === 0) return;
          const index = taken++;
          const request: SearchRequest = {
            source: options.regex.source,
            flags: options.regex.flags,
            limit,
            lineChars: options.lineChars,
            maxBytes: options.maxBytes,
            literal,
            paths: paths.join("\0"),
          };
          const timeout = deadline - performance.now();
          done.set(index, await exchange(worker(), request, paths.length, timeout, signal));
          // Hand over every batch that is now next in order.
          for (let ready = done.get(delivered); ready !== undefined; ready = done.get(delivered)) {
            done.delete(delivered);
            if (wantMore && !onBatch(ready, delivered * BATCH_FILES)) wantMore = false;
            delivered++;
          }
        }
      };
      // Threads start as work arrives: a search of a few files never pays for more than one.
      // Each has several batches in hand, so it never waits for the main thread, which reads
      // replies only between slices of the walk.
      const workers: (Worker | undefined)[] = [];
      const lanes = Array.from({ length: wanted * IN_FLIGHT }, (_, lane) =>
        run(() => {
          const at = lane % wanted;
          workers[at] ??= threads[at]?.worker ?? spawn();
          return workers[at];
        }),
      );
      try {
        await Promise.all(lanes);
        // Every thread answered every request: they are idle and may serve the next search.
        clean = !signal.aborted;
      } catch (error) {
        clean = false;
        stop();
        throw error === TIMED_OUT ? timeLimit() : error;
      }
    },
    [Symbol.dispose]: stop,
  };
}

const TIMED_OUT = Symbol("timed out");

/** A thread's requests awaiting their replies, which come back in the order they were posted. */
interface Pending {
  readonly files: number;
  readonly resolve: (report: BatchReport) => void;
  readonly reject: (error: Error) => void;
}

const channels = new WeakMap<Worker, Pending[]>();

function channelOf(worker: Worker): Pending[] {
  let pending = channels.get(worker);
  if (pending !== undefined) return pending;
  const queue: Pending[] = [];
  worker.addEventListener("message", (event: MessageEvent) => {
    const waiting = queue.shift();
    if (waiting === undefined) return;
    const reply = v.safeParse(Reply, event.data);
    if (reply.success && covers(reply.output, waiting.files)) waiting.resolve(reply.output);
    else waiting.reject(new Error("grep worker: malformed reply"));
  });
  worker.addEventListener("error", (event: ErrorEvent) => {
    for (const waiting of queue.splice(0))
      waiting.reject(new Error(`grep worker failed: ${event.message}`));
  });
  channels.set(worker, queue);
  pending = queue;
  return pending;
}

/** Posts one request and waits for its reply, the abort, the time limit or a worker error. */
function exchange(
  worker: Worker,
  request: SearchRequest,
  files: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<BatchReport> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (timeoutMs <= 0) return Promise.reject(TIMED_OUT);
  const { promise, resolve, reject } = Promise.withResolvers<BatchReport>();
  const onAbort = () => reject(signal.reason);
  const timer = setTimeout(() => reject(TIMED_OUT), timeoutMs);
  signal.addEventListener("abort", onAbort, { once: true });
  channelOf(worker).push({ files, resolve, reject });
  worker.postMessage(request);
  return promise.finally(() => {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  });
}

/** The report speaks of exactly the batch's `files` files, and of nothing else. */
function covers(report: BatchReport, files: number): boolean {
  const inBatch = (file: number) => Number.isInteger(file) && file >= 0 && file < files;
  return (
    report.status.length === files &&
    report.identity.length === files * 3 &&
    report.moved.every((entry) => inBatch(entry.file)) &&
    report.matches.every((match) => inBatch(match.file))
  );
}

/** "0.3 s", "10 s". */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * A piece of text every match must contain, when the pattern has one a byte search can find
 * (at least 3 plain characters, outside any group, alternation or optional part); files
 * without it are skipped before they are decoded. Case-insensitive patterns have none.
 */
export function requiredLiteral(regex: RegExp): string | undefined {
  if (regex.flags.includes("i") || /[|(]/.test(regex.source.replace(/\\./g, ""))) return undefined;
  const source = regex.source;
  let best = "";
  let run = "";
  const close = (optional: boolean) => {
    if (!optional && run.length > best.length) best = run;
    run = "";
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i] ?? "";
    const next = source[i + 1] ?? "";
    if (c === "\\") {
      // An escaped punctuation mark is itself; a class like \d or \s ends the run.
      if (/[^A-Za-z0-9]/.test(next) && next !== "") {
        const optional = /[?*{]/.test(source[i + 2] ?? "");
        if (optional) close(false);
        else run += next;
        i++;
        continue;
      }
      close(false);
      i++;
      continue;
    }
    if (/[A-Za-z0-9_ :=<>,;'"@#%&!~/-]/.test(c)) {
      // A character made optional or repeatable by what follows leaves the run before it.
      if (/[?*{+]/.test(next)) {
        close(false);
        i++;
        continue;
      }
      run += c;
      continue;
    }
    close(false);
    if (c === "[" || c === "{") {
      const end = source.indexOf(c === "[" ? "]" : "}", i + 2);
      i = end === -1 ? source.length : end;
    }
  }
  close(false);
  return best.length >= 3 ? best : undefined;
}
