/**
 * The envelope of a session's turns: one turn at a time, marked running before it starts, its
 * end logged and flushed, and published only once the mark is cleared. An end the log could not
 * take (a full disk) is kept, and written before the next turn starts. The turn's body logs its
 * own start, since only it knows what that holds (a prompt, or a compaction's bare start).
 */
import { ConflictError, errorMessage } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { NewSessionEvent, SessionEvent } from "../session/events.ts";
import type { SessionLog } from "../session/types.ts";
import type { LiveEvent, TurnOutcome } from "./types.ts";

/** A turn's work between its start and its end; its failures become an `error` end. */
export type TurnBody = (turnId: string, signal: AbortSignal) => Promise<TurnOutcome>;

export interface TurnEnvelopeDeps {
  readonly log: SessionLog;
  readonly logger: Logger;
  readonly publish: (event: LiveEvent) => void;
  /** Called once a turn's end is recorded, before it is published. */
  readonly ended: () => void;
}

export interface TurnEnvelope {
  /**
   * Runs `body` as the session's turn, under `signal` and the envelope's own lifetime.
   * Resolves with the turn's end as recorded; rejects only with ConflictError (closed or busy).
   */
  run(signal: AbortSignal, body: TurnBody): Promise<TurnOutcome>;
  /** Whether a turn runs. */
  running(): boolean;
  /** Resolves once no turn runs. */
  idle(): Promise<void>;
  /** Refuses new turns, stops the running one and resolves once it has ended. Idempotent. */
  close(): Promise<void>;
}

/** Creates the envelope of one session, with no turn running. */
export function createTurnEnvelope(deps: TurnEnvelopeDeps): TurnEnvelope {
  const { log } = deps;
  const sessionId = log.header.id;
  /** The running turn's end, while one runs. */
  let running: Promise<TurnOutcome> | undefined;
  // The envelope's own lifetime, not a turn's: closing it stops the turn it runs, whoever
  // holds that turn's signal.
  const closing = new AbortController();
  let unrecordedEnd: NewSessionEvent | undefined;

  async function runTurn(signal: AbortSignal, body: TurnBody): Promise<TurnOutcome> {
    const turnId = crypto.randomUUID();
    let outcome: TurnOutcome;
    try {
      if (unrecordedEnd !== undefined) {
        log.append(unrecordedEnd);
        unrecordedEnd = undefined;
      }
      outcome = await body(turnId, signal);
    } catch (error) {
      deps.logger.error("turn failed", { sessionId, error });
      outcome = {
        turnId,
        reason: "error",
        error: { code: "internal", message: errorMessage(error) },
      };
    }
    try {
      log.append({
        type: "turn_end",
        turnId,
        reason: outcome.reason,
        ...(outcome.error ? { error: outcome.error } : {}),
      });
      await log.flush();
    } catch (error) {
      // A turn is answered as it ended only once that is on disk; otherwise its answer is this.
      deps.logger.error("could not record the end of a turn", { sessionId, error });
      outcome = {
        turnId,
        reason: "error",
        error: { code: "log_write", message: errorMessage(error) },
      };
      if (isOpenTurn(log.events, turnId))
        unrecordedEnd = { type: "turn_end", turnId, reason: "error", error: outcome.error };
    }
    deps.ended();
    // Cleared before subscribers hear of the end, so a follow-up prompt they send is accepted.
    running = undefined;
    deps.publish({ type: "turn_end", ...outcome });
    return outcome;
  }

  return {
    async run(signal, body) {
      if (closing.signal.aborted) throw new ConflictError("the session is closed", { sessionId });
      if (running)
        throw new ConflictError("a prompt is already running in this session", { sessionId });
      // Marked running before the turn starts: a turn that fails before its first await
      // (a broken log) must still find itself marked, so its end can clear the mark.
      const finished = Promise.withResolvers<TurnOutcome>();
      running = finished.promise;
      runTurn(AbortSignal.any([signal, closing.signal]), body).then(
        finished.resolve,
        finished.reject,
      );
      return await finished.promise;
    },
    running: () => running !== undefined,
    async idle() {
      if (running) await running;
    },
    async close() {
      closing.abort();
      await running?.catch(() => undefined);
    },
  };
}

/** Whether `turnId` is the log's latest turn and its end is not logged. */
function isOpenTurn(events: readonly SessionEvent[], turnId: string): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.type === "turn_end") return false;
    if (event?.type === "turn_start") return event.turnId === turnId;
  }
  return false;
}
