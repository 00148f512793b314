/** Contracts of the session store: one append-only JSONL log per session. */
import type { NewSessionEvent, SessionEvent, SessionHeader } from "./events.ts";

export type { NewSessionEvent, SessionEvent, SessionHeader };

/**
 * One session's log, open for appending. At most one writer exists per session across all
 * processes: it holds the session's lock file (`<id>.lock`) until it is disposed. Every event
 * it holds in memory has been handed to the file writer in order.
 */
export interface SessionLog extends AsyncDisposable {
  readonly header: SessionHeader;
  /** Every event so far, in `seq` order (the ones read at open plus those appended since). */
  readonly events: readonly SessionEvent[];
  /** Assigns `seq` and `at`, validates, queues the line. Throws after dispose. */
  append(event: NewSessionEvent): SessionEvent;
  /** Resolves once every appended line is on disk. */
  flush(): Promise<void>;
}

export interface SessionSummary {
  readonly id: string;
  readonly cwd: string;
  readonly title: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The directories the session added, as a reload restores them (absent ones included). */
  readonly directories: readonly string[];
}

export interface SessionStore {
  /**
   * Creates `<home>/sessions/<new id>.jsonl` with its header and holds its lock. `cwd` must be
   * absolute.
   */
  create(options: { cwd: string }): Promise<SessionLog>;
  /**
   * Opens an existing log: validates the id (InvalidInputError, touching no file), reads and
   * validates every line (a torn last line is dropped and truncated away before the next
   * append; any other bad line is an InvalidInputError naming file and line), and returns a
   * writer. NotFoundError when no such session exists. ConflictError when the session is
   * open for writing elsewhere: in this process, or in another process that may still be
   * running (the message names its pid); a lock left by a process that is gone is taken over.
   */
  open(id: string): Promise<SessionLog>;
  /** Every session, most recently updated first. */
  list(): Promise<SessionSummary[]>;
  /**
   * Removes a session's log for good. Takes the session's writer lock first, so a log open for
   * writing (here or in another process) is never removed: ConflictError then. InvalidInputError
   * for a malformed id, NotFoundError when no such session exists.
   */
  delete(id: string): Promise<void>;
}
