/**
 * A tool call's context, and the one place the approval policy is applied to what a tool asks:
 * under `never` whatever needs approval is turned down and nobody is asked; under `on-request`
 * the approval seam asks. A tool only says what needs approval and why.
 */
import type { ApprovalSeam } from "../approval/types.ts";
import type { AskOutcome, ToolApprovalRequest, ToolContext } from "./types.ts";

/** The facts of one call, everything of its context but `ask`. */
export type ToolCallFacts = Omit<ToolContext, "ask">;

/** The context of one call, whose `ask()` goes through `approval` under the call's knobs. */
export function createToolContext(facts: ToolCallFacts, approval: ApprovalSeam): ToolContext {
  return { ...facts, ask: (request, signal) => askUnderPolicy(facts, approval, request, signal) };
}

async function askUnderPolicy(
  facts: ToolCallFacts,
  approval: ApprovalSeam,
  request: ToolApprovalRequest,
  signal: AbortSignal | undefined,
): Promise<AskOutcome> {
  if (facts.knobs.approvalPolicy === "never") return "refused";
  return approval.request(
    { ...request, sessionId: facts.sessionId, toolCallId: facts.toolCallId },
    signal === undefined ? facts.signal : AbortSignal.any([facts.signal, signal]),
  );
}
