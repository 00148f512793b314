import { describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import * as v from "valibot";
import { createInteractionSeam } from "../../src/interaction/seam.ts";
import type { InteractionProvider, QuestionOutcome } from "../../src/interaction/types.ts";
import {
  DECLINED_OUTPUT,
  UNAVAILABLE_OUTPUT,
  createAskUserQuestionTool,
} from "../../src/tools/ask-user-question.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import type { ExecutedCall, Tool, ToolRegistry } from "../../src/tools/types.ts";
import {
  databaseQuestion,
  featuresQuestion,
  recordingQuestioner,
  sampleArgs,
  sampleQuestions,
  untilAborted,
} from "../interaction/fakes.ts";
import { toolContext } from "./harness.ts";

const NAME = "ask_user_question";

const args = sampleArgs;

const Noop = v.object({});
const other: Tool<typeof Noop> = {
  name: "other",
  description: "Always offered.",
  input: Noop,
  execute: async () => ({ isError: false, output: "ok" }),
};

/** A registry whose question tool asks through a seam over `providers`. */
function registryAsking(providers: readonly InteractionProvider[]): ToolRegistry {
  return createToolRegistry([
    other,
    createAskUserQuestionTool({ interaction: createInteractionSeam({ providers }) }),
  ]);
}

const registry = registryAsking([]);

/** Calls the question tool with `providers` answering. */
function ask(
  providers: readonly InteractionProvider[],
  rawArguments: string,
  signal?: AbortSignal,
): Promise<ExecutedCall> {
  return registryAsking(providers).execute(NAME, rawArguments, toolContext(tmpdir(), { signal }));
}

function offered(providers: readonly InteractionProvider[], sessionId: string): string[] {
  return registryAsking(providers)
    .definitions({ sessionId })
    .map((d) => d.name);
}

describe("ask_user_question availability", () => {
  test("is left out of the definitions when no provider can ask in the session", () => {
    expect(offered([], "s-test")).toEqual(["other"]);
    const onlyOther = recordingQuestioner({ outcome: "declined" }, ["s-other"]);
    expect(offered([onlyOther], "s-test")).toEqual(["other"]);
  });

  test("is offered in the sessions a provider can ask in", () => {
    const provider = recordingQuestioner({ outcome: "declined" }, ["s-test"]);
    expect(offered([provider], "s-test")).toEqual(["other", NAME]);
    expect(offered([provider], "s-elsewhere")).toEqual(["other"]);
  });

  test("its JSON Schema requires questions with at least two options", () => {
    const definition = registry.definitions().find((d) => d.name === NAME);
    expect(definition?.parameters).toMatchObject({
      type: "object",
      required: ["questions"],
      properties: {
        questions: {
          type: "array",
          minItems: 1,
          maxItems: 4,
          items: { required: ["question", "options"], properties: { options: { minItems: 2 } } },
        },
      },
    });
  });
});

describe("ask_user_question outcomes", () => {
  test("sends the questions through the seam with the session and tool call ids", async () => {
    const provider = recordingQuestioner({ outcome: "declined" });
    await ask([provider], JSON.stringify(args));
    expect(provider.requests).toEqual([
      { sessionId: "s-test", toolCallId: "call-1", questions: sampleQuestions },
    ]);
  });

  test("answered: the model reads each question and its answer; typed text overrides picks", async () => {
    const answered: QuestionOutcome = {
      outcome: "answered",
      answers: [
        { question: databaseQuestion.question, selected: ["SQLite"], custom: "DuckDB, embedded" },
        { question: featuresQuestion.question, selected: ["Auth", "Search"] },
      ],
    };
    const { result, intent } = await ask([recordingQuestioner(answered)], JSON.stringify(args));
    const output = [
      "The user answered:",
      "1. [Database] Which database should the service use?",
      "   Answer (in the user's own words): DuckDB, embedded",
      "2. Which features ship first?",
      "   Answer: Auth, Search",
    ].join("\n");
    expect(result).toEqual({ isError: false, output, details: answered });
    expect(intent).toEqual({
      type: "generic",
      kind: "think",
      title: "Ask: Which database should the service use? (+1 more)",
      text: output,
    });
  });

  test("answered with nothing for one question says so", async () => {
    const answered: QuestionOutcome = {
      outcome: "answered",
      answers: [
        { question: "q1", selected: ["PostgreSQL"] },
        { question: "q2", selected: [] },
      ],
    };
    const { result } = await ask([recordingQuestioner(answered)], JSON.stringify(args));
    expect(result.output).toEndWith(
      "Answer: PostgreSQL\n2. Which features ship first?\n   Answer: (none given)",
    );
  });

  test("declined: the model is told to go on by itself or ask in plain text", async () => {
    const { result, intent } = await ask(
      [recordingQuestioner({ outcome: "declined" })],
      JSON.stringify(args),
    );
    expect(result).toEqual({
      isError: false,
      output: DECLINED_OUTPUT,
      details: { outcome: "declined" },
    });
    expect(intent).toMatchObject({ type: "generic", text: "The user declined to answer." });
  });

  test("cancelled while the question is open: an isError `cancelled` result", async () => {
    const provider = recordingQuestioner(untilAborted);
    const turn = new AbortController();
    const running = ask([provider], JSON.stringify(args), turn.signal);
    await provider.asked();
    turn.abort();
    const { result } = await running;
    expect(result).toMatchObject({ isError: true, output: "cancelled" });
  });

  test("called where nobody can be asked: answers at once and asks no one", async () => {
    const elsewhere = recordingQuestioner({ outcome: "declined" }, ["s-other"]);
    const { result, intent } = await ask([elsewhere], JSON.stringify(args));
    expect(result).toEqual({
      isError: true,
      output: UNAVAILABLE_OUTPUT,
      details: { outcome: "unavailable", reason: "nobody can be asked in this session" },
    });
    expect(intent).toMatchObject({ text: "Nobody can be asked in this session." });
    expect(elsewhere.requests).toEqual([]);
  });

  test("a provider that throws counts as a decline", async () => {
    const broken: InteractionProvider = {
      canAsk: () => true,
      ask: () => Promise.reject(new Error("client went away")),
    };
    const { result } = await ask([broken], JSON.stringify(args));
    expect(result).toMatchObject({ isError: false, output: DECLINED_OUTPUT });
  });
});

describe("ask_user_question arguments", () => {
  const option = { label: "A" };
  const question = { question: "Q?", options: [option, { label: "B" }] };
  const cases: [string, unknown, string][] = [
    ["no questions", { questions: [] }, "- questions: Invalid length"],
    ["five questions", { questions: Array(5).fill(question) }, "- questions: Invalid length"],
    [
      "one option",
      { questions: [{ ...question, options: [option] }] },
      "- questions.0.options: Invalid length",
    ],
    [
      "a long header",
      { questions: [{ ...question, header: "x".repeat(31) }] },
      "- questions.0.header: Invalid length",
    ],
    [
      "a blank label",
      { questions: [{ ...question, options: [option, { label: " " }] }] },
      "- questions.0.options.1.label",
    ],
    [
      "multi_select not a bool",
      { questions: [{ ...question, multi_select: "yes" }] },
      "- questions.0.multi_select",
    ],
    [
      "a repeated label",
      { questions: [question, { ...question, options: [option, { label: " A " }] }] },
      "question 2 repeats an option label",
    ],
  ];
  for (const [name, input, issue] of cases) {
    test(`rejects ${name} without asking`, async () => {
      const provider = recordingQuestioner({ outcome: "declined" });
      const { result } = await ask([provider], JSON.stringify(input));
      expect(result.isError).toBe(true);
      expect(result.output).toContain(issue);
      expect(provider.requests).toEqual([]);
    });
  }
});

describe("ask_user_question presentation", () => {
  test("the call shows as one titled card listing the questions and options", () => {
    expect(registry.presentCall(NAME, JSON.stringify(args), { cwd: tmpdir() })).toEqual({
      type: "generic",
      kind: "think",
      title: "Ask: Which database should the service use? (+1 more)",
      text: [
        "1. [Database] Which database should the service use?",
        "   - PostgreSQL: Relational, runs as a server",
        "   - SQLite: One file, no server",
        "2. Which features ship first? (pick any)",
        "   - Auth",
        "   - Billing",
        "   - Search",
      ].join("\n"),
    });
  });

  test("a long first question is shortened to one line", () => {
    const long = {
      questions: [
        { question: `Pick\n${"word ".repeat(40)}`, options: [{ label: "a" }, { label: "b" }] },
      ],
    };
    const intent = registry.presentCall(NAME, JSON.stringify(long), { cwd: tmpdir() });
    expect(intent.title).toHaveLength("Ask: ".length + 80);
    expect(intent.title).not.toContain("\n");
    expect(intent.title).toEndWith("…");
  });
});
