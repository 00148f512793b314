/**
 * Structured questions asked at the terminal, one after the other: numbered options, a number
 * (single select) or a comma list of numbers (multi select) picks, any other text is the
 * user's own answer and overrides the picks. An empty answer declines the whole set.
 */
import { terminalText } from "../render/terminal-text.ts";
import type { InteractionProvider, Question, QuestionAnswer } from "../interaction/types.ts";
import { type LineQueue, afterQueuedOutput } from "./line-queue.ts";
import type { TextSink } from "./types.ts";

export interface QuestionPromptDeps {
  /** The chat's shared input; undefined while there is none (then nobody can be asked). */
  readonly lines: () => LineQueue | undefined;
  readonly out: TextSink;
}

/** Creates the terminal provider; it answers for every session of its composition. */
export function createQuestionPrompt(deps: QuestionPromptDeps): InteractionProvider {
  return {
    canAsk: () => deps.lines() !== undefined,
    async ask(request, signal) {
      const lines = deps.lines();
      if (lines === undefined) return { outcome: "unavailable", reason: "no terminal input" };
      await afterQueuedOutput();
      if (signal.aborted) return { outcome: "cancelled" };
      const onAbort = () => lines.interrupt();
      signal.addEventListener("abort", onAbort, { once: true });
      lines.dropTypeahead();
      try {
        const answers: QuestionAnswer[] = [];
        for (const [index, question] of request.questions.entries()) {
          const shown = promptText(question, index, request.questions.length);
          deps.out.write(terminalText(shown.body));
          lines.prompt(shown.answerLine);
          let line = await lines.next();
          while (line !== undefined && !signal.aborted && isMistypedPick(question, line)) {
            lines.prompt(`  Pick from 1 to ${question.options.length}, or type your own answer: `);
            line = await lines.next();
          }
          if (signal.aborted) return { outcome: "cancelled" };
          if (line === undefined || line.trim() === "") return { outcome: "declined" };
          answers.push(parseAnswer(question, line));
        }
        return { outcome: "answered", answers };
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    },
  };
}

/** One typed line as an answer: valid option numbers pick, anything else is free text. */
export function parseAnswer(question: Question, line: string): QuestionAnswer {
  const text = line.trim();
  const picks = pickedNumbers(text, question);
  if (picks === undefined) return { question: question.question, selected: [], custom: text };
  const selected = [...new Set(picks)].flatMap((n) => {
    const option = question.options[n - 1];
    return option === undefined ? [] : [option.label];
  });
  return { question: question.question, selected };
}

/** Numbers only, but not a valid pick (out of range, or several for a single choice): ask again. */
function isMistypedPick(question: Question, line: string): boolean {
  const text = line.trim();
  return /^\d+(\s*[,\s]\s*\d+)*$/.test(text) && pickedNumbers(text, question) === undefined;
}

/** The numbers typed, or undefined when the text is not a valid pick for this question. */
function pickedNumbers(text: string, question: Question): number[] | undefined {
  const pattern = question.multiSelect ? /^\d+(\s*[,\s]\s*\d+)*$/ : /^\d+$/;
  if (!pattern.test(text)) return undefined;
  const numbers = text.split(/[\s,]+/).map(Number);
  const inRange = numbers.every(
    (n) => Number.isInteger(n) && n >= 1 && n <= question.options.length,
  );
  return inRange ? numbers : undefined;
}

/** The question and its options, then the line the answer is typed on. */
function promptText(
  question: Question,
  index: number,
  count: number,
): { body: string; answerLine: string } {
  const counter = count > 1 ? ` (${index + 1}/${count})` : "";
  const header = question.header === undefined ? "" : `[${question.header}] `;
  const options = question.options.map((option, i) => {
    const description = option.description === undefined ? "" : ` — ${option.description}`;
    return `  ${i + 1}. ${option.label}${description}\n`;
  });
  const how = question.multiSelect
    ? "Numbers separated by commas (e.g. 1,3), or type your own answer; empty to decline: "
    : "A number, or type your own answer; empty to decline: ";
  return {
    body: `\n? ${header}${question.question}${counter}\n${options.join("")}`,
    answerLine: `  ${how}`,
  };
}
