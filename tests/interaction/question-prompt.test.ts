import { describe, expect, test } from "bun:test";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { createLineQueue } from "../../src/cli/line-queue.ts";
import { createQuestionPrompt, parseAnswer } from "../../src/cli/question-prompt.ts";
import type { QuestionRequest } from "../../src/interaction/types.ts";
import { databaseQuestion, featuresQuestion, sampleQuestions } from "./fakes.ts";

const request: QuestionRequest = {
  sessionId: "s-1",
  toolCallId: "call-1",
  questions: sampleQuestions,
};

/** A real readline interface over a PassThrough, the chat's line queue, and what was printed. */
function terminal(atTerminal = false) {
  const input = new PassThrough();
  const rl = createInterface({ input, terminal: false });
  const printed: string[] = [];
  const waiters: { needle: string; resolve: () => void }[] = [];
  const print = (text: string) => {
    printed.push(text);
    for (const waiter of waiters.filter((w) => printed.join("").includes(w.needle))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const lines = createLineQueue(rl, { terminal: atTerminal, write: print });
  const prompt = createQuestionPrompt({ lines: () => lines, out: { write: print } });
  return {
    prompt,
    lines,
    /** Resolves once the printed text contains `needle`. */
    shown: (needle: string) =>
      printed.join("").includes(needle)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ needle, resolve })),
    /** Resolves once readline has delivered the next line (the queue buffers it if unasked). */
    delivered: () => new Promise<void>((resolve) => rl.once("line", () => resolve())),
    printed,
    type: (text: string) => input.write(`${text}\n`),
    end: () => input.end(),
    [Symbol.dispose]: () => rl.close(),
  };
}

describe("the terminal question prompt", () => {
  test("at a terminal, lines typed before the question appeared do not answer it", async () => {
    using term = terminal(true);
    const buffered = term.delivered();
    term.type("stray type-ahead");
    await buffered;
    const answer = term.prompt.ask(request, new AbortController().signal);
    await term.shown(databaseQuestion.question);
    term.type("2");
    await term.shown(featuresQuestion.question);
    term.type("1");
    expect(await answer).toEqual({
      outcome: "answered",
      answers: [
        { question: databaseQuestion.question, selected: ["SQLite"] },
        { question: featuresQuestion.question, selected: ["Auth"] },
      ],
    });
  });

  test("shows numbered options, takes a number and a comma list", async () => {
    using term = terminal();
    const answer = term.prompt.ask(request, new AbortController().signal);
    term.type("2");
    term.type(" 1, 3 ");
    expect(await answer).toEqual({
      outcome: "answered",
      answers: [
        { question: databaseQuestion.question, selected: ["SQLite"] },
        { question: featuresQuestion.question, selected: ["Auth", "Search"] },
      ],
    });
    expect(term.printed.join("")).toEqual(
      "\n? [Database] Which database should the service use? (1/2)\n" +
        "  1. PostgreSQL — Relational, runs as a server\n" +
        "  2. SQLite — One file, no server\n" +
        "  A number, or type your own answer; empty to decline: " +
        "\n? Which features ship first? (2/2)\n" +
        "  1. Auth\n  2. Billing\n  3. Search\n" +
        "  Numbers separated by commas (e.g. 1,3), or type your own answer; empty to decline: ",
    );
  });

  test("text that is not a pick is the user's own answer; a mistyped number asks again", async () => {
    using term = terminal();
    const answer = term.prompt.ask(request, new AbortController().signal);
    term.type("DuckDB, embedded");
    term.type("1,7");
    term.type("1,3");
    expect(await answer).toEqual({
      outcome: "answered",
      answers: [
        { question: databaseQuestion.question, selected: [], custom: "DuckDB, embedded" },
        { question: featuresQuestion.question, selected: ["Auth", "Search"] },
      ],
    });
    expect(term.printed.join("")).toContain("Pick from 1 to");
  });

  test("an empty answer declines the whole set", async () => {
    using term = terminal();
    const answer = term.prompt.ask(request, new AbortController().signal);
    term.type("1");
    term.type("   ");
    expect(await answer).toEqual({ outcome: "declined" });
  });

  test("the end of input declines", async () => {
    using term = terminal();
    const answer = term.prompt.ask(request, new AbortController().signal);
    term.end();
    expect(await answer).toEqual({ outcome: "declined" });
  });

  test("an abort while waiting for a line (Ctrl-C cancelling the turn) is cancelled", async () => {
    using term = terminal();
    const turn = new AbortController();
    const answer = term.prompt.ask(request, turn.signal);
    turn.abort();
    expect(await answer).toEqual({ outcome: "cancelled" });
  });

  test("the line after a cancelled question goes to whoever reads next", async () => {
    using term = terminal();
    const turn = new AbortController();
    const answer = term.prompt.ask(request, turn.signal);
    turn.abort();
    expect(await answer).toEqual({ outcome: "cancelled" });
    term.type("next prompt");
    expect(await term.lines.next()).toBe("next prompt");
  });

  test("asks nothing once aborted, and cannot ask without input", async () => {
    using term = terminal();
    expect(await term.prompt.ask(request, AbortSignal.abort())).toEqual({ outcome: "cancelled" });
    expect(term.printed).toEqual([]);
    const none = createQuestionPrompt({ lines: () => undefined, out: { write: () => {} } });
    expect(none.canAsk("s-1")).toBe(false);
    expect(term.prompt.canAsk("s-1")).toBe(true);
  });
});

describe("parseAnswer", () => {
  test("numbers in range pick; anything else is free text", () => {
    const cases: [string, string, readonly string[], string | undefined][] = [
      ["single", "1", ["PostgreSQL"], undefined],
      ["single", "3", [], "3"],
      ["single", "0", [], "0"],
      ["single", "1,2", [], "1,2"],
      ["multi", "3,1,3", ["Search", "Auth"], undefined],
      ["multi", "2 3", ["Billing", "Search"], undefined],
      ["multi", "2,", [], "2,"],
      ["multi", "auth and search", [], "auth and search"],
    ];
    for (const [kind, line, selected, custom] of cases) {
      const question = kind === "single" ? databaseQuestion : featuresQuestion;
      expect(parseAnswer(question, line)).toEqual({
        question: question.question,
        selected,
        ...(custom === undefined ? {} : { custom }),
      });
    }
  });
});
