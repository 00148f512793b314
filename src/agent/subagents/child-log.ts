/**
 * A subagent's own history, in memory: its turn loop reads and appends it like a session's log.
 * What must outlive it reaches the session's log through `mirror` (its requests' usage, tagged
 * with the task's call), and its steps through the task's progress; the session's log stays
 * the one record on disk.
 */
import type {
  NewSessionEvent,
  SessionEvent,
  SessionHeader,
  SessionLog,
} from "../../session/types.ts";

export function createChildLog(
  header: SessionHeader,
  mirror: (event: SessionEvent) => void,
): SessionLog {
  const events: SessionEvent[] = [];
  return {
    header,
    events,
    append(event: NewSessionEvent): SessionEvent {
      const logged = {
        ...event,
        seq: events.length + 1,
        at: new Date().toISOString(),
      } as SessionEvent;
      events.push(logged);
      mirror(logged);
      return logged;
    },
    flush: async () => undefined,
    [Symbol.asyncDispose]: async () => undefined,
  };
}
