/** How a turn's end reads in the terminal. */
import type { TurnOutcome } from "../agent/types.ts";

export function describeOutcome(outcome: TurnOutcome): string {
  switch (outcome.reason) {
    case "end_turn":
      return "done";
    case "cancelled":
      return "cancelled";
    case "max_tokens":
      return "the model reached its output token limit";
    case "max_turn_requests":
      return "the turn reached its limit of model requests";
    case "refusal":
      return "the model refused to continue";
    case "error":
      return outcome.error?.message ?? "the turn failed";
    default: {
      const unhandled: never = outcome.reason;
      return `the turn ended: ${String(unhandled)}`;
    }
  }
}
