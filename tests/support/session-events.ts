/** Expected shapes of session logs, shared by suites that read `<id>.jsonl` files. */

/**
 * The events that open a session's first turn: the turn, the user's message, the anchor, and
 * every setting (a first turn records them all).
 */
export const FIRST_TURN_OPENING = [
  "turn_start",
  "user_message",
  "prompt_submit",
  "model",
  "effort",
  "sandbox_mode",
  "approval_policy",
] as const;
