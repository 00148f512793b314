/**
 * The ACP provider of the interaction seam. A bridged session whose client advertised form
 * elicitation registers here; its questions become one `elicitation/create` form scoped to the
 * session and the asking tool call. Anything but a valid accept is a decline; the turn's abort
 * cancels the request and settles the question `cancelled` at once, whatever the client does.
 */
import type * as acp from "@agentclientprotocol/sdk";
import * as v from "valibot";
import type {
  InteractionProvider,
  Question,
  QuestionAnswer,
  QuestionOutcome,
} from "../interaction/types.ts";
import { ABORTED, untilAborted } from "../abortable.ts";
import type { Logger } from "../log.ts";
import { createSessionTargets } from "./session-targets.ts";
import type { AcpFormRegistry, AcpFormTarget } from "./types.ts";

export interface AcpQuestionerDeps {
  /** Where client failures are noted (they count as a decline). */
  readonly logger?: Logger;
}

/** The form part of the `elicitation/create` params; the caller adds the session scope. */
export interface QuestionForm {
  readonly mode: "form";
  readonly message: string;
  readonly requestedSchema: acp.ElicitationSchema;
}

/** The full `elicitation/create` params: the form, scoped to a session and its tool call. */
export interface QuestionFormRequest extends QuestionForm {
  readonly sessionId: string;
  readonly toolCallId: string;
}

/** Creates the provider; the composition hands the same object to the ACP bridge. */
export function createAcpQuestioner(
  deps: AcpQuestionerDeps = {},
): InteractionProvider & AcpFormRegistry {
  const targets = createSessionTargets<AcpFormTarget>();
  return {
    register: targets.register,
    canAsk: (sessionId) => targets.get(sessionId)?.canElicitForm === true,
    async ask(request, signal) {
      const target = targets.get(request.sessionId);
      if (target === undefined || !target.canElicitForm) {
        return { outcome: "unavailable", reason: "the client cannot show forms" };
      }
      if (signal.aborted) return { outcome: "cancelled" };
      const params: QuestionFormRequest = {
        ...questionsToForm(request.questions),
        sessionId: request.sessionId,
        toolCallId: request.toolCallId,
      };
      try {
        const response = await untilAborted(target.elicit(params, signal), signal);
        if (response === ABORTED) return { outcome: "cancelled" };
        return formToOutcome(request.questions, response);
      } catch (error) {
        if (signal.aborted) return { outcome: "cancelled" };
        deps.logger?.info("a question form ended without an answer; declined", {
          sessionId: request.sessionId,
          error,
        });
        return { outcome: "declined" };
      }
    },
  };
}

/**
 * One form for all the questions: per question a pick field (a titled single select, or a
 * titled multi select) and a free-text field whose non-empty answer overrides the pick.
 */
export function questionsToForm(questions: readonly Question[]): QuestionForm {
  const properties: Record<string, acp.ElicitationPropertySchema> = {};
  questions.forEach((question, index) => {
    const title = question.header ?? question.question;
    const description = question.header === undefined ? undefined : question.question;
    const options = question.options.map(
      (option): acp.EnumOption => ({
        const: option.label,
        title: option.label,
        ...(option.description === undefined ? {} : { description: option.description }),
      }),
    );
    properties[pickKey(index)] = question.multiSelect
      ? {
          type: "array",
          title,
          ...(description === undefined ? {} : { description }),
          items: { anyOf: options },
        }
      : {
          type: "string",
          title,
          ...(description === undefined ? {} : { description }),
          oneOf: options,
        };
    properties[textKey(index)] = {
      type: "string",
      title: "Or your own answer",
      description: "Replaces the choice above when filled in.",
    };
  });
  const only = questions.length === 1 ? questions[0] : undefined;
  return {
    mode: "form",
    message: only?.question ?? `The agent has ${questions.length} questions for you.`,
    requestedSchema: { type: "object", properties },
  };
}

const Response = v.looseObject({ action: v.string(), content: v.optional(v.unknown()) });
const Content = v.nullish(v.record(v.string(), v.unknown()));
const Text = v.nullish(v.string());
const Single = v.nullish(v.string());
const Multi = v.nullish(v.array(v.string()));

/**
 * The outcome of a form answer, validated here whatever the client sent: an accept whose
 * content fits the form is `answered` (an accept with nothing filled in is `declined`);
 * decline, cancel, unknown actions and content that does not fit are `declined`.
 */
export function formToOutcome(questions: readonly Question[], response: unknown): QuestionOutcome {
  const parsed = v.safeParse(Response, response);
  if (!parsed.success || parsed.output.action !== "accept") return { outcome: "declined" };
  const content = v.safeParse(Content, parsed.output.content);
  if (!content.success) return { outcome: "declined" };
  const values = content.output ?? {};
  const answers: QuestionAnswer[] = [];
  for (const [index, question] of questions.entries()) {
    const answer = answerOf(question, values[pickKey(index)], values[textKey(index)]);
    if (answer === undefined) return { outcome: "declined" };
    answers.push(answer);
  }
  const empty = answers.every((a) => a.selected.length === 0 && a.custom === undefined);
  return empty ? { outcome: "declined" } : { outcome: "answered", answers };
}

/** One question's answer, or undefined when the values do not fit its fields. */
function answerOf(question: Question, pick: unknown, text: unknown): QuestionAnswer | undefined {
  const custom = v.safeParse(Text, text);
  if (!custom.success) return undefined;
  const labels = new Set(question.options.map((o) => o.label));
  let selected: string[];
  if (question.multiSelect) {
    const picks = v.safeParse(Multi, pick);
    if (!picks.success) return undefined;
    selected = [...new Set(picks.output ?? [])];
  } else {
    const picked = v.safeParse(Single, pick);
    if (!picked.success) return undefined;
    // Some forms send "" for an untouched select.
    selected =
      picked.output === null || picked.output === undefined || picked.output === ""
        ? []
        : [picked.output];
  }
  if (!selected.every((label) => labels.has(label))) return undefined;
  const typed = custom.output?.trim() ?? "";
  return { question: question.question, selected, ...(typed === "" ? {} : { custom: typed }) };
}

/** The property key of question `index`'s pick field (sorted keys keep the form's order). */
function pickKey(index: number): string {
  return `q${index + 1}`;
}

/** The property key of question `index`'s free-text field. */
function textKey(index: number): string {
  return `q${index + 1}_other`;
}
