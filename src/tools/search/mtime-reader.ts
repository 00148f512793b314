/**
 * glob's modification times, read while the walk still runs: once a batch of found paths is
 * ready it goes to a worker thread, which `lstat`s them on another core while the main thread
 * keeps listing directories (a large tree's stats cost about as much as its walk). A search
 * that finds fewer than one batch never starts a thread; a thread that fails or is not there
 * leaves its batches to the main thread, so the times are always those `lstat` gives.
 *
 * The thread runs `mtimeWorkerMain`'s source text through a Blob URL, for the reason
 * `file-searcher.ts` gives.
 */
import * as fs from "node:fs";

/** Paths per message: enough to amortise the round trip, small enough to start early. */
const BATCH_PATHS = 512;
/** Work done between two yields to the event loop when the main thread stats itself. */
const SLICE_MS = 8;
/** A thread left idle is kept this long for the next glob, then terminated. */
const IDLE_MS = 30_000;

export interface MtimeReader extends Disposable {
  /** Queues `path`; its time is the `n`th of `done`'s, in the order paths were added. */
  add(path: string): void;
  /** Every added path's modification time in ms (0 when it cannot be read), in order. */
  done(signal: AbortSignal): Promise<Float64Array>;
  /** Lets the thread go: kept for the next glob after `done`, else terminated. */
  [Symbol.dispose](): void;
}

interface Batch {
  readonly first: number;
  readonly paths: readonly string[];
}

let idle: { worker: Worker; url: string } | undefined;
let idleTimer: ReturnType<typeof setTimeout> | undefined;

function takeThread(): { worker: Worker; url: string } | undefined {
  clearTimeout(idleTimer);
  if (idle !== undefined) {
    const thread = idle;
    idle = undefined;
    thread.worker.ref();
    return thread;
  }
  try {
    const source = new Blob([`(${mtimeWorkerMain.toString()})();`], { type: "text/javascript" });
    const url = URL.createObjectURL(source);
    return { worker: new Worker(url), url };
  } catch {
    return undefined;
  }
}

function terminate(thread: { worker: Worker; url: string }): void {
  thread.worker.terminate();
  URL.revokeObjectURL(thread.url);
}

function keepIdle(thread: { worker: Worker; url: string }): void {
  if (idle !== undefined) terminate(idle);
  idle = thread;
  thread.worker.unref();
  idleTimer = setTimeout(() => {
    if (idle !== undefined) terminate(idle);
    idle = undefined;
  }, IDLE_MS);
  idleTimer.unref?.();
}

/** A reader with nothing added yet. */
export function createMtimeReader(): MtimeReader {
  const paths: string[] = [];
  let sent = 0;
  let thread: { worker: Worker; url: string } | undefined;
  let broken = false;
  const inFlight: Batch[] = [];
  const replies: { batch: Batch; mtimes: Float64Array | undefined }[] = [];
  let settle: (() => void) | undefined;

  const onReply = (event: MessageEvent) => {
    const batch = inFlight.shift();
    if (batch === undefined) return;
    const mtimes = replyTimes(event.data);
    const ok = mtimes !== undefined && mtimes.length === batch.paths.length;
    replies.push({ batch, mtimes: ok ? mtimes : undefined });
    if (inFlight.length === 0) settle?.();
  };
  const onError = () => {
    broken = true;
    for (const batch of inFlight.splice(0)) replies.push({ batch, mtimes: undefined });
    settle?.();
  };
  const post = () => {
    const batch = { first: sent, paths: paths.slice(sent) };
    sent = paths.length;
    if (!broken && thread === undefined) {
      thread = takeThread();
      thread?.worker.addEventListener("message", onReply);
      thread?.worker.addEventListener("error", onError);
    }
    if (thread === undefined || broken) {
      replies.push({ batch, mtimes: undefined });
      return;
    }
    inFlight.push(batch);
    thread.worker.postMessage(batch.paths.join("\0"));
  };
  const release = (clean: boolean) => {
    if (thread === undefined) return;
    thread.worker.removeEventListener("message", onReply);
    thread.worker.removeEventListener("error", onError);
    if (clean) keepIdle(thread);
    else terminate(thread);
    thread = undefined;
  };

  return {
    add(path) {
      paths.push(path);
      if (paths.length - sent >= BATCH_PATHS) post();
    },
    async done(signal) {
      const mtimes = new Float64Array(paths.length);
      // What is left is stat'ed here: a thread would only wait for it.
      const rest = { first: sent, paths: paths.slice(sent) };
      sent = paths.length;
      try {
        signal.throwIfAborted();
        await statHere(rest, mtimes, signal);
        if (inFlight.length > 0) {
          signal.throwIfAborted();
          const { promise, resolve } = Promise.withResolvers<void>();
          settle = resolve;
          const onAbort = () => resolve();
          signal.addEventListener("abort", onAbort, { once: true });
          await promise.finally(() => signal.removeEventListener("abort", onAbort));
          signal.throwIfAborted();
        }
        for (const { batch, mtimes: read } of replies) {
          if (read === undefined) await statHere(batch, mtimes, signal);
          else mtimes.set(read, batch.first);
        }
        release(!broken);
        return mtimes;
      } catch (error) {
        release(false);
        throw error;
      }
    },
    // A walk that failed or was cancelled never asks for its times: its thread ends here.
    [Symbol.dispose]: () => release(false),
  };
}

/**
 * The times in a thread's reply, or undefined when it is not `{ mtimes: Float64Array }`: checked
 * by hand, as a schema's first runs in a fresh process cost more than the check.
 */
function replyTimes(data: unknown): Float64Array | undefined {
  if (typeof data !== "object" || data === null || !("mtimes" in data)) return undefined;
  return data.mtimes instanceof Float64Array ? data.mtimes : undefined;
}

/** Stats `batch` on the main thread into `mtimes`, yielding every few milliseconds. */
async function statHere(batch: Batch, mtimes: Float64Array, signal: AbortSignal): Promise<void> {
  let sliceStart = performance.now();
  for (let i = 0; i < batch.paths.length; i++) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      signal.throwIfAborted();
      sliceStart = performance.now();
    }
    mtimes[batch.first + i] = mtimeOf(batch.paths[i] ?? "");
  }
}

function mtimeOf(path: string): number {
  try {
    return fs.lstatSync(path).mtimeMs;
  } catch {
    // Gone since the walk: sorted last.
    return 0;
  }
}

/**
 * The thread's entry point: each message is paths joined by NUL; the answer is their `lstat`
 * modification times in ms, 0 for one that cannot be read. Self-contained (see
 * `search-worker.ts`): no imports, no module-level names.
 */
export function mtimeWorkerMain(): void {
  const fs = process.getBuiltinModule("node:fs");
  addEventListener("message", (event: MessageEvent) => {
    const paths = String(event.data).split("\0");
    const mtimes = new Float64Array(paths.length);
    for (let i = 0; i < paths.length; i++) {
      try {
        mtimes[i] = fs.lstatSync(paths[i] ?? "").mtimeMs;
      } catch {
        mtimes[i] = 0;
      }
    }
    postMessage({ mtimes }, [mtimes.buffer]);
  });
}
