import { describe, expect, test } from "bun:test";
import { formToOutcome, questionsToForm } from "../../src/acp/elicitation.ts";
import type { Question, QuestionOutcome } from "../../src/interaction/types.ts";
import { createAcpValidator } from "../support/acp-schema.ts";
import { databaseQuestion, featuresQuestion, sampleQuestions } from "./fakes.ts";

/** Schema problems of an `elicitation/create` request carrying `params` ([] when valid). */
function requestProblems(params: unknown): string[] {
  return createAcpValidator().outbound({
    jsonrpc: "2.0",
    id: 0,
    method: "elicitation/create",
    params,
  });
}

const scope = { sessionId: "s-1", toolCallId: "call-1" };

describe("questionsToForm", () => {
  test("a single select is a titled string field, a multi select a titled array, each with a free-text field", () => {
    expect(questionsToForm(sampleQuestions)).toEqual({
      mode: "form",
      message: "The agent has 2 questions for you.",
      requestedSchema: {
        type: "object",
        properties: {
          q1: {
            type: "string",
            title: "Database",
            description: "Which database should the service use?",
            oneOf: [
              {
                const: "PostgreSQL",
                title: "PostgreSQL",
                description: "Relational, runs as a server",
              },
              { const: "SQLite", title: "SQLite", description: "One file, no server" },
            ],
          },
          q1_other: {
            type: "string",
            title: "Or your own answer",
            description: "Replaces the choice above when filled in.",
          },
          q2: {
            type: "array",
            title: "Which features ship first?",
            items: {
              anyOf: [
                { const: "Auth", title: "Auth" },
                { const: "Billing", title: "Billing" },
                { const: "Search", title: "Search" },
              ],
            },
          },
          q2_other: {
            type: "string",
            title: "Or your own answer",
            description: "Replaces the choice above when filled in.",
          },
        },
      },
    });
  });

  test("one question is the form's message", () => {
    const one = questionsToForm([featuresQuestion]);
    expect(one.message).toBe("Which features ship first?");
    expect(Object.keys(one.requestedSchema.properties ?? {})).toEqual(["q1", "q1_other"]);
  });

  test("the request validates against the SDK schema's CreateElicitationRequest", () => {
    const four: Question[] = [...sampleQuestions, ...sampleQuestions];
    for (const questions of [sampleQuestions, four, [databaseQuestion]]) {
      expect(requestProblems({ ...questionsToForm(questions), ...scope })).toEqual([]);
    }
  });

  test("the validator is not vacuous: an option without a title fails", () => {
    const form = questionsToForm([databaseQuestion]);
    const broken = {
      ...form,
      ...scope,
      requestedSchema: {
        type: "object",
        properties: { q1: { type: "string", oneOf: [{ const: "a" }] } },
      },
    };
    expect(requestProblems(broken).join("\n")).toContain(
      "oneOf/0 must have required property 'title'",
    );
  });
});

describe("formToOutcome", () => {
  const accept = (content: unknown) =>
    formToOutcome(sampleQuestions, { action: "accept", content });
  const declined: QuestionOutcome = { outcome: "declined" };

  test("an accept becomes the answers, free text over the picks", () => {
    expect(
      accept({ q1: "SQLite", q1_other: "  DuckDB  ", q2: ["Auth", "Search"], q2_other: "" }),
    ).toEqual({
      outcome: "answered",
      answers: [
        { question: databaseQuestion.question, selected: ["SQLite"], custom: "DuckDB" },
        { question: featuresQuestion.question, selected: ["Auth", "Search"] },
      ],
    });
  });

  test("untouched fields are empty answers; unknown keys are ignored", () => {
    expect(accept({ q1: "", q2: [], q2_other: "none of these", extra: 1 })).toEqual({
      outcome: "answered",
      answers: [
        { question: databaseQuestion.question, selected: [] },
        { question: featuresQuestion.question, selected: [], custom: "none of these" },
      ],
    });
  });

  test("an accept with nothing filled in is a decline", () => {
    expect(accept({})).toEqual(declined);
    expect(accept(undefined)).toEqual(declined);
    expect(accept(null)).toEqual(declined);
    expect(accept({ q1: "", q1_other: "   ", q2: [] })).toEqual(declined);
  });

  test("content that does not fit the form is a decline", () => {
    for (const content of [
      { q1: "MySQL" },
      { q1: ["SQLite"] },
      { q2: "Auth" },
      { q2: ["Auth", "Nope"] },
      { q1_other: 42 },
      "garbage",
      [1, 2],
    ]) {
      expect(accept(content)).toEqual(declined);
    }
  });

  test("decline, cancel, unknown actions and garbage are declines", () => {
    for (const response of [
      { action: "decline" },
      { action: "cancel" },
      { action: "_later", content: { q1: "SQLite" } },
      { content: { q1: "SQLite" } },
      null,
      "accept",
      42,
    ]) {
      expect(formToOutcome(sampleQuestions, response)).toEqual(declined);
    }
  });
});
