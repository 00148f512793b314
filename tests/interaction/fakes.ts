/** Fakes at the interaction seam: a provider that records each request and answers by script. */
import type {
  InteractionProvider,
  Question,
  QuestionOutcome,
  QuestionRequest,
} from "../../src/interaction/types.ts";

export interface RecordingQuestioner extends InteractionProvider {
  readonly requests: QuestionRequest[];
  /** Resolves with the next request once it has arrived. */
  asked(): Promise<QuestionRequest>;
}

/**
 * A provider for `sessions` (every session when omitted) that answers with `answer`; a function
 * answer may wait, e.g. for the signal.
 */
export function recordingQuestioner(
  answer:
    | QuestionOutcome
    | ((request: QuestionRequest, signal: AbortSignal) => Promise<QuestionOutcome>),
  sessions?: readonly string[],
): RecordingQuestioner {
  const requests: QuestionRequest[] = [];
  const waiters: PromiseWithResolvers<QuestionRequest>[] = [];
  return {
    requests,
    asked() {
      const seen = requests[waiters.length];
      const waiter = Promise.withResolvers<QuestionRequest>();
      if (seen !== undefined) waiter.resolve(seen);
      waiters.push(waiter);
      return waiter.promise;
    },
    canAsk: (sessionId) => sessions === undefined || sessions.includes(sessionId),
    async ask(request, signal) {
      requests.push(request);
      waiters[requests.length - 1]?.resolve(request);
      return typeof answer === "function" ? answer(request, signal) : answer;
    },
  };
}

/** Resolves `cancelled` once `signal` aborts: a surface that never answers on its own. */
export function untilAborted(
  _request: QuestionRequest,
  signal: AbortSignal,
): Promise<QuestionOutcome> {
  const done = Promise.withResolvers<QuestionOutcome>();
  if (signal.aborted) done.resolve({ outcome: "cancelled" });
  signal.addEventListener("abort", () => done.resolve({ outcome: "cancelled" }), { once: true });
  return done.promise;
}

/** A single-select question with a header and described options. */
export const databaseQuestion: Question = {
  question: "Which database should the service use?",
  header: "Database",
  options: [
    { label: "PostgreSQL", description: "Relational, runs as a server" },
    { label: "SQLite", description: "One file, no server" },
  ],
  multiSelect: false,
};

/** A multi-select question without a header. */
export const featuresQuestion: Question = {
  question: "Which features ship first?",
  options: [{ label: "Auth" }, { label: "Billing" }, { label: "Search" }],
  multiSelect: true,
};

/** Both, as one request carries them. */
export const sampleQuestions: readonly Question[] = [databaseQuestion, featuresQuestion];

/** The model's `ask_user_question` arguments that become `sampleQuestions`. */
export const sampleArgs = {
  questions: [
    {
      question: "Which database should the service use?",
      header: "Database",
      options: [
        { label: "PostgreSQL", description: "Relational, runs as a server" },
        { label: "SQLite", description: "One file, no server" },
      ],
    },
    {
      question: "Which features ship first?",
      options: [{ label: "Auth" }, { label: "Billing" }, { label: "Search" }],
      multi_select: true,
    },
  ],
};
