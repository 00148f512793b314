/**
 * The answerer chain. Fails closed: anything but an explicit allow is a deny. With a rule book,
 * a request a saved rule covers is allowed without asking, and an "always allow" answer saves
 * the rules the request offered.
 */
import type { RuleBook } from "../rules/store.ts";
import { offerFor } from "../rules/match.ts";
import { projectRootOf } from "../rules/project.ts";
import type {
  ApprovalAnswer,
  ApprovalAnswerer,
  ApprovalDecision,
  ApprovalRequest,
  ApprovalSeam,
  AskedRequest,
} from "./types.ts";

export interface ApprovalSeamDeps {
  readonly answerers: readonly ApprovalAnswerer[];
  readonly onError?: (error: unknown, request: ApprovalRequest) => void;
  /** Saved "always allow" rules; without it nothing is remembered. */
  readonly rules?: RuleBook;
  /** The user's home, for rule labels (`~/src/app`). */
  readonly home?: string;
}

export function createApprovalSeam(deps: ApprovalSeamDeps): ApprovalSeam {
  // A rule check that fails (the file, bash's grammar) covers nothing: the request is asked.
  const asked = async (request: ApprovalRequest): Promise<AskedRequest | "covered"> => {
    const { rules } = deps;
    if (rules === undefined || request.subject === undefined || request.cwd === undefined) {
      return request;
    }
    const project = projectRootOf(request.cwd);
    try {
      if (await rules.covers(project, request.subject)) return "covered";
    } catch (error) {
      deps.onError?.(error, request);
    }
    try {
      const offer = await offerFor(project, request.subject, deps.home);
      return offer === undefined ? request : { ...request, offer };
    } catch (error) {
      deps.onError?.(error, request);
      return request;
    }
  };

  return {
    async request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
      const toAsk = await asked(request);
      if (toAsk === "covered") return signal.aborted ? "deny" : "allow";
      for (const answerer of deps.answerers) {
        if (signal.aborted) return "deny";
        let answer: ApprovalAnswer | "pass";
        try {
          answer = await answerer.answer(toAsk, signal);
        } catch (error) {
          deps.onError?.(error, request);
          return "deny";
        }
        if (answer === "pass") continue;
        if (signal.aborted) return "deny";
        if (answer === "allow_always" && toAsk.offer !== undefined) {
          try {
            deps.rules?.add(toAsk.offer);
          } catch (error) {
            // The allow still stands; only the memory of it failed.
            deps.onError?.(error, request);
          }
          return "allow";
        }
        return answer === "deny" ? "deny" : "allow";
      }
      return "deny";
    },
  };
}
