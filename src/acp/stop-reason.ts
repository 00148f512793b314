/**
 * The one codec from a turn's end to the `session/prompt` result. Adding a stop reason to the
 * agent breaks the build here until it is mapped.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { TurnOutcome, TurnStopReason } from "../agent/types.ts";
import type { LoggedError } from "../session/events.ts";

/** How a prompt RPC settles: a stop reason, or an error response for an `error` turn. */
export type PromptSettlement =
  | { readonly type: "stop"; readonly stopReason: acp.StopReason }
  | { readonly type: "error"; readonly error: LoggedError };

/** Maps a turn's outcome; total over `TurnStopReason` (`interrupted` never ends a live turn). */
export function settlementOf(outcome: TurnOutcome): PromptSettlement {
  const reason: TurnStopReason = outcome.reason;
  switch (reason) {
    case "end_turn":
    case "max_tokens":
    case "max_turn_requests":
    case "refusal":
    case "cancelled":
      return { type: "stop", stopReason: reason };
    case "error":
      return {
        type: "error",
        error: outcome.error ?? { code: "internal", message: "the turn ended with an error" },
      };
    default: {
      const exhaustive: never = reason;
      return exhaustive;
    }
  }
}
