/**
 * Background commands: started by `bash` with `run_in_background`, read with `bash_output`,
 * ended with `bash_kill`. They belong to their session, not to the turn that started them:
 * each runs until it exits, is killed, or its session ends. Their output goes into a ring
 * buffer of the last `RING_BYTES`, read from where the last read stopped.
 */
import type { CommandResult } from "../../exec/types.ts";

/** Background commands one session may run at once. */
export const MAX_BACKGROUND_PER_SESSION = 8;
/** Output each background command keeps (the most recent). */
export const RING_BYTES = 1024 * 1024;

export type JobStatus =
  | { readonly state: "running" }
  | { readonly state: "exited"; readonly code: number }
  | { readonly state: "killed" };

export interface JobSummary {
  readonly id: string;
  readonly command: string;
  readonly status: JobStatus;
}

export interface BackgroundJob {
  readonly id: string;
  readonly command: string;
  status(): JobStatus;
  /**
   * What was written since the last read, at most `maxBytes` of it (the newest), and how many
   * unread bytes were dropped (by the ring buffer or by `maxBytes`).
   */
  read(maxBytes: number): { readonly text: string; readonly dropped: number };
  /** Resolves when new output arrives, the command ends, `ms` pass, or `signal` aborts. */
  wait(ms: number, signal: AbortSignal): Promise<void>;
  /** Ends the command's whole process group; resolves once it is gone. */
  kill(): Promise<void>;
}

/** Starts the command: `signal` ends it, `onOutput` gets its output as it arrives. */
export type JobStart = (
  signal: AbortSignal,
  onOutput: (text: string) => void,
) => Promise<CommandResult>;

export interface BackgroundJobs extends AsyncDisposable {
  /** A new job, or why not (the session runs the most it may: the message lists them). */
  start(
    sessionId: string,
    command: string,
    run: JobStart,
  ): { readonly job: BackgroundJob } | { readonly refused: string };
  get(sessionId: string, id: string): BackgroundJob | undefined;
  /** The session's jobs, running ones and ended ones not yet forgotten, oldest first. */
  list(sessionId: string): readonly JobSummary[];
  /** Ends every job of the session and forgets them. */
  endSession(sessionId: string): Promise<void>;
}

export interface BackgroundJobsDeps {
  /** Called once a session's jobs are all gone (e.g. to drop its network namespace). */
  readonly sessionEnded?: (sessionId: string) => void;
}

interface Entry {
  readonly job: BackgroundJob;
  readonly abort: AbortController;
  readonly done: Promise<unknown>;
}

/** Ended jobs a session keeps for `bash_output` (each holds up to its ring of output). */
const ENDED_KEPT = MAX_BACKGROUND_PER_SESSION;

/** Forgets the oldest ended jobs past `ENDED_KEPT`, so a session's memory stays bounded. */
function dropOldestEnded(entries: Map<string, Entry>): void {
  const ended = [...entries].filter(([, entry]) => entry.job.status().state !== "running");
  for (const [id] of ended.slice(0, Math.max(0, ended.length - ENDED_KEPT))) {
    entries.delete(id);
  }
}

export function createBackgroundJobs(deps: BackgroundJobsDeps = {}): BackgroundJobs {
  const sessions = new Map<string, { next: number; entries: Map<string, Entry> }>();
  const sessionOf = (id: string) => {
    let session = sessions.get(id);
    if (session === undefined) {
      session = { next: 1, entries: new Map() };
      sessions.set(id, session);
    }
    return session;
  };
  const end = async (sessionId: string) => {
    const session = sessions.get(sessionId);
    sessions.delete(sessionId);
    const entries = [...(session?.entries.values() ?? [])];
    for (const entry of entries) entry.abort.abort();
    await Promise.allSettled(entries.map((entry) => entry.done));
    deps.sessionEnded?.(sessionId);
  };
  return {
    start(sessionId, command, run) {
      const session = sessionOf(sessionId);
      const running = [...session.entries.values()].filter(
        (entry) => entry.job.status().state === "running",
      );
      if (running.length >= MAX_BACKGROUND_PER_SESSION) {
        const list = running.map((entry) => `- ${entry.job.id}: ${entry.job.command}`).join("\n");
        return {
          refused:
            `At most ${MAX_BACKGROUND_PER_SESSION} background commands run at once in a session, ` +
            `and ${running.length} run now; end one with bash_kill first:\n${list}`,
        };
      }
      dropOldestEnded(session.entries);
      const id = `bg-${session.next++}`;
      const abort = new AbortController();
      const job = createJob(id, command, abort);
      const done = run(abort.signal, job.push).then(
        (result) => job.ended(result),
        () => job.ended(undefined),
      );
      session.entries.set(id, { job, abort, done });
      return { job };
    },
    get: (sessionId, id) => sessions.get(sessionId)?.entries.get(id)?.job,
    list: (sessionId) =>
      [...(sessions.get(sessionId)?.entries.values() ?? [])].map(({ job }) => ({
        id: job.id,
        command: job.command,
        status: job.status(),
      })),
    endSession: end,
    async [Symbol.asyncDispose]() {
      await Promise.allSettled([...sessions.keys()].map(end));
    },
  };
}

function createJob(
  id: string,
  command: string,
  abort: AbortController,
): BackgroundJob & { push(text: string): void; ended(result: CommandResult | undefined): void } {
  const ring = createRing(RING_BYTES);
  let read = 0;
  let status: JobStatus = { state: "running" };
  let killed = false;
  let wake = Promise.withResolvers<void>();
  const gone = Promise.withResolvers<void>();
  const nudge = () => {
    wake.resolve();
    wake = Promise.withResolvers<void>();
  };
  return {
    id,
    command,
    status: () => status,
    push(text) {
      ring.write(text);
      nudge();
    },
    ended(result) {
      status =
        killed || result === undefined || result.cancelled || result.exitCode === null
          ? { state: "killed" }
          : { state: "exited", code: result.exitCode };
      nudge();
      gone.resolve();
    },
    read(maxBytes) {
      const unread = ring.since(read);
      read = ring.written();
      const bytes = Buffer.from(unread.text, "utf8");
      if (bytes.length <= maxBytes) return unread;
      const kept = bytes.subarray(bytes.length - maxBytes).toString("utf8");
      return { text: kept, dropped: unread.dropped + bytes.length - maxBytes };
    },
    async wait(ms, signal) {
      if (status.state !== "running" || ring.written() > read || ms <= 0) return;
      const timer = Promise.withResolvers<void>();
      const handle = setTimeout(timer.resolve, ms);
      const onAbort = () => timer.resolve();
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        await Promise.race([wake.promise, timer.promise]);
      } finally {
        clearTimeout(handle);
        signal.removeEventListener("abort", onAbort);
      }
    },
    async kill() {
      if (status.state === "running") killed = true;
      abort.abort();
      await gone.promise;
    },
  };
}

/** The last `capacity` bytes of a stream, addressed by the count of bytes written before. */
function createRing(capacity: number) {
  const chunks: Buffer[] = [];
  let start = 0;
  let end = 0;
  return {
    written: () => end,
    write(text: string) {
      const bytes = Buffer.from(text, "utf8");
      chunks.push(bytes);
      end += bytes.length;
      while (end - start > capacity && chunks.length > 0) {
        const first = chunks[0] as Buffer;
        const over = end - start - capacity;
        if (first.length <= over) {
          chunks.shift();
          start += first.length;
        } else {
          chunks[0] = first.subarray(over);
          start += over;
        }
      }
    },
    /** The bytes written at or after `offset` that are still kept, and how many were not. */
    since(offset: number): { text: string; dropped: number } {
      const from = Math.max(offset, start);
      let skip = from - start;
      const parts: Buffer[] = [];
      for (const chunk of chunks) {
        if (skip >= chunk.length) {
          skip -= chunk.length;
          continue;
        }
        parts.push(skip === 0 ? chunk : chunk.subarray(skip));
        skip = 0;
      }
      return { text: Buffer.concat(parts).toString("utf8"), dropped: from - offset };
    },
  };
}
