/**
 * Contracts of the user-interaction seam: structured questions a tool asks the person who owns
 * the session, answered through whichever surface that is (an ACP form, the terminal).
 */

export interface QuestionOption {
  readonly label: string;
  readonly description?: string;
}

export interface Question {
  readonly question: string;
  /** A very short label (a chip or form title). */
  readonly header?: string;
  readonly options: readonly QuestionOption[];
  readonly multiSelect: boolean;
}

export interface QuestionRequest {
  readonly sessionId: string;
  readonly toolCallId: string;
  readonly questions: readonly Question[];
}

export interface QuestionAnswer {
  readonly question: string;
  /** Labels picked (empty when only free text was given). */
  readonly selected: readonly string[];
  /** Free text; when non-empty it overrides the picks. */
  readonly custom?: string;
}

export type QuestionOutcome =
  | { readonly outcome: "answered"; readonly answers: readonly QuestionAnswer[] }
  | { readonly outcome: "declined" }
  /** The turn was cancelled while the question was open. */
  | { readonly outcome: "cancelled" }
  /** Nobody can be asked here (no provider, or the client cannot show forms). */
  | { readonly outcome: "unavailable"; readonly reason: string };

/** One surface's way of asking. A provider answers only for sessions it owns. */
export interface InteractionProvider {
  canAsk(sessionId: string): boolean;
  /** Must settle: resolves `cancelled` when `signal` aborts; an error counts as `declined`. */
  ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionOutcome>;
}

/** Routes to the first provider that can ask for the session; none: `unavailable`. */
export interface InteractionSeam {
  canAsk(sessionId: string): boolean;
  ask(request: QuestionRequest, signal: AbortSignal): Promise<QuestionOutcome>;
}
