/** Per-session targets of a live ACP connection, registered while a session is open. */

/** Targets by session id; `register` returns the unregister function. */
export interface SessionTargets<Target> {
  /**
   * Makes `target` the session's target. The returned function removes it, unless a later
   * `register` for the same session replaced it.
   */
  register(sessionId: string, target: Target): () => void;
  /** The session's current target, if one is registered. */
  get(sessionId: string): Target | undefined;
}

/** Creates an empty set of session targets. */
export function createSessionTargets<Target>(): SessionTargets<Target> {
  const targets = new Map<string, Target>();
  return {
    register(sessionId, target) {
      targets.set(sessionId, target);
      return () => {
        if (targets.get(sessionId) === target) targets.delete(sessionId);
      };
    },
    get: (sessionId) => targets.get(sessionId),
  };
}
