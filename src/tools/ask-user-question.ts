/**
 * `ask_user_question`: structured multiple-choice questions for the person who owns the
 * session, answered through the interaction seam (an ACP form, the terminal). The tool is only
 * offered where someone can answer; called anyway, it answers at once and never waits.
 */
import * as v from "valibot";
import type {
  InteractionSeam,
  Question,
  QuestionAnswer,
  QuestionOutcome,
} from "../interaction/types.ts";
import type { Tool, ToolResult } from "./types.ts";

/** Characters a header may have: it is shown as a chip or a form field title. */
const MAX_HEADER_CHARS = 30;
/** Questions one call may ask. */
const MAX_QUESTIONS = 4;
const MAX_TITLE_CHARS = 80;

const NotBlank = /\S/;

const OptionInput = v.object({
  label: v.pipe(v.string(), v.regex(NotBlank), v.description("The choice, in a few words.")),
  description: v.optional(v.pipe(v.string(), v.description("What choosing it means or implies."))),
});

const QuestionInput = v.object({
  question: v.pipe(
    v.string(),
    v.regex(NotBlank),
    v.description('The complete question, e.g. "Which database should the service use?"'),
  ),
  header: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(MAX_HEADER_CHARS),
      v.description(
        `A very short label for the question (at most ${MAX_HEADER_CHARS} characters), e.g. "Database".`,
      ),
    ),
  ),
  options: v.pipe(
    v.array(OptionInput),
    v.minLength(2),
    v.description(
      'Two or more distinct choices. Do not add an "Other" choice: the user can always type their own answer.',
    ),
  ),
  multi_select: v.optional(
    v.pipe(v.boolean(), v.description("Let the user pick several options. Default false.")),
  ),
});

export const AskUserQuestionInput = v.object({
  questions: v.pipe(
    v.array(QuestionInput),
    v.minLength(1),
    v.maxLength(MAX_QUESTIONS),
    v.description(`One to ${MAX_QUESTIONS} questions, asked together.`),
  ),
});
export type AskUserQuestionInput = v.InferOutput<typeof AskUserQuestionInput>;

/** What the model reads when the user declined. */
export const DECLINED_OUTPUT =
  "The user declined to answer; proceed on your own judgement or ask in plain text.";
/** What the model reads when nobody can be asked in this session. */
export const UNAVAILABLE_OUTPUT =
  "The user cannot be asked questions here: no interactive surface is attached to this session. " +
  "Do not call ask_user_question again; proceed on your own judgement and state the assumptions you make.";

export interface AskUserQuestionDeps {
  /** Who can answer: the surface's questioners (an ACP form, the terminal), tried in order. */
  readonly interaction: InteractionSeam;
}

/** Creates the `ask_user_question` tool, asking through the given interaction seam. */
export function createAskUserQuestionTool(
  deps: AskUserQuestionDeps,
): Tool<typeof AskUserQuestionInput, QuestionOutcome> {
  const { interaction } = deps;
  return {
    name: "ask_user_question",
    description:
      "Ask the user one to four multiple-choice questions and wait for the answers. Use it when a " +
      "decision only the user can make blocks the work: a choice between approaches, an unclear " +
      "requirement, a preference. The user picks an option (several with multi_select) or types " +
      "their own answer. Do not use it for what you can find out yourself, or to ask permission " +
      "to run a tool.",
    input: AskUserQuestionInput,
    available: (ctx) => interaction.canAsk(ctx.sessionId),
    async execute(input, ctx): Promise<ToolResult<QuestionOutcome>> {
      const questions = toQuestions(input);
      const repeated = questions.findIndex(
        (q) => new Set(q.options.map((o) => o.label.trim())).size !== q.options.length,
      );
      // Two options with one label could not be told apart in a form (JSON Schema can't say it).
      if (repeated !== -1) {
        return {
          isError: true,
          output: `question ${repeated + 1} repeats an option label; give each option a distinct label`,
        };
      }
      const outcome = await interaction.ask(
        { sessionId: ctx.sessionId, toolCallId: ctx.toolCallId, questions },
        ctx.signal,
      );
      return { ...resultOf(questions, outcome), details: outcome };
    },
    presentCall: (input) => ({
      type: "generic",
      kind: "think",
      title: titleOf(input),
      text: listQuestions(toQuestions(input)),
    }),
    presentResult: (input, result) => ({
      type: "generic",
      kind: "think",
      title: titleOf(input),
      text: result.details?.outcome === "answered" ? result.output : shownOutcome(result),
    }),
  };
}

/** The seam's questions from the model's arguments. */
function toQuestions(input: AskUserQuestionInput): Question[] {
  return input.questions.map((q) => ({
    question: q.question,
    ...(q.header === undefined || q.header.trim() === "" ? {} : { header: q.header.trim() }),
    options: q.options.map((o) => ({
      label: o.label,
      ...(o.description === undefined || o.description.trim() === ""
        ? {}
        : { description: o.description }),
    })),
    multiSelect: q.multi_select ?? false,
  }));
}

function resultOf(questions: readonly Question[], outcome: QuestionOutcome): ToolResult<never> {
  switch (outcome.outcome) {
    case "answered":
      return { isError: false, output: formatAnswers(questions, outcome.answers) };
    case "declined":
      return { isError: false, output: DECLINED_OUTPUT };
    case "cancelled":
      return { isError: true, output: "cancelled" };
    case "unavailable":
      return { isError: true, output: UNAVAILABLE_OUTPUT };
    default: {
      const _exhaustive: never = outcome;
      return _exhaustive;
    }
  }
}

/** The model-readable answers: each question, then the answer (typed text over picks). */
function formatAnswers(questions: readonly Question[], answers: readonly QuestionAnswer[]): string {
  const lines = ["The user answered:"];
  questions.forEach((question, index) => {
    const answer = answers[index];
    lines.push(`${index + 1}. ${headed(question)}`, `   ${answerLine(answer)}`);
  });
  return lines.join("\n");
}

function answerLine(answer: QuestionAnswer | undefined): string {
  const custom = answer?.custom?.trim();
  if (custom !== undefined && custom !== "") return `Answer (in the user's own words): ${custom}`;
  if (answer === undefined || answer.selected.length === 0) return "Answer: (none given)";
  return `Answer: ${answer.selected.join(", ")}`;
}

function headed(question: Question): string {
  return question.header === undefined
    ? question.question
    : `[${question.header}] ${question.question}`;
}

/** Markdown listing the questions and their options, for the call's card. */
function listQuestions(questions: readonly Question[]): string {
  return questions
    .map((question, index) => {
      const how = question.multiSelect ? " (pick any)" : "";
      const options = question.options.map((o) =>
        o.description === undefined ? `   - ${o.label}` : `   - ${o.label}: ${o.description}`,
      );
      return [`${index + 1}. ${headed(question)}${how}`, ...options].join("\n");
    })
    .join("\n");
}

function shownOutcome(result: ToolResult<QuestionOutcome>): string {
  switch (result.details?.outcome) {
    case "declined":
      return "The user declined to answer.";
    case "unavailable":
      return "Nobody can be asked in this session.";
    case "cancelled":
      return "Cancelled.";
    default:
      return result.output;
  }
}

/** One line: "Ask: <first question>", shortened, with a count of the others. */
function titleOf(input: AskUserQuestionInput): string {
  const first = (input.questions[0]?.question ?? "").replace(/\s+/g, " ").trim();
  const short = first.length > MAX_TITLE_CHARS ? `${first.slice(0, MAX_TITLE_CHARS - 1)}…` : first;
  const more = input.questions.length - 1;
  return more > 0 ? `Ask: ${short} (+${more} more)` : `Ask: ${short}`;
}
