/** The answerer chain. Fails closed: anything but an explicit allow is a deny. */
import type { ApprovalAnswerer, ApprovalDecision, ApprovalRequest, ApprovalSeam } from "./types.ts";

export interface ApprovalSeamDeps {
  readonly answerers: readonly ApprovalAnswerer[];
  readonly onError?: (error: unknown, request: ApprovalRequest) => void;
}

export function createApprovalSeam(deps: ApprovalSeamDeps): ApprovalSeam {
  return {
    async request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
      for (const answerer of deps.answerers) {
        if (signal.aborted) return "deny";
        let decision: ApprovalDecision | "pass";
        try {
          decision = await answerer.answer(request, signal);
        } catch (error) {
          deps.onError?.(error, request);
          return "deny";
        }
        if (decision !== "pass") return signal.aborted ? "deny" : decision;
      }
      return "deny";
    },
  };
}
