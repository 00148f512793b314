import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as v from "valibot";
import type { InteractionProvider, QuestionOutcome } from "../../src/interaction/types.ts";
import { UNAVAILABLE_OUTPUT } from "../../src/tools/ask-user-question.ts";
import { type TestAgent, createTestAgent } from "../support/agent.ts";
import {
  type ModelServer,
  type RecordedRequest,
  startModelServer,
  textTurn,
  toolTurn,
} from "../support/model-server.ts";
import {
  databaseQuestion,
  featuresQuestion,
  recordingQuestioner,
  sampleArgs as args,
  sampleQuestions,
  untilAborted,
} from "./fakes.ts";

const NAME = "ask_user_question";

const Body = v.object({
  tools: v.optional(v.array(v.object({ function: v.object({ name: v.string() }) }))),
  messages: v.array(
    v.looseObject({
      role: v.string(),
      content: v.optional(v.unknown()),
      tool_call_id: v.optional(v.string()),
    }),
  ),
});

function toolNames(request: RecordedRequest | undefined): string[] {
  return (v.parse(Body, request?.body).tools ?? []).map((t) => t.function.name);
}

function toolMessages(request: RecordedRequest | undefined) {
  return v
    .parse(Body, request?.body)
    .messages.filter((m) => m.role === "tool")
    .map((m) => ({ tool_call_id: m.tool_call_id, content: m.content }));
}

let server: ModelServer;
const agents: TestAgent[] = [];

beforeEach(async () => {
  server = await startModelServer();
});

afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent[Symbol.asyncDispose]()));
  expect(server.failures).toEqual([]);
  await server[Symbol.asyncDispose]();
});

function agentWith(questioners?: readonly InteractionProvider[]): TestAgent {
  const agent = createTestAgent({ baseUrl: server.url, questioners });
  agents.push(agent);
  return agent;
}

describe("ask_user_question in a real composition", () => {
  test("without a provider the model is not offered the tool", async () => {
    const agent = agentWith();
    server.script(textTurn("fine"));
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    await handle.prompt([{ type: "text", text: "hi" }], new AbortController().signal);
    const names = toolNames(server.requests[0]);
    expect(names).toContain("read_file");
    expect(names).not.toContain(NAME);
  });

  test("with a provider the tool is offered and the answer reaches the model in the next request", async () => {
    const answered: QuestionOutcome = {
      outcome: "answered",
      answers: [
        { question: databaseQuestion.question, selected: ["SQLite"] },
        { question: featuresQuestion.question, selected: [], custom: "auth only" },
      ],
    };
    const provider = recordingQuestioner(answered);
    const agent = agentWith([provider]);
    server.script(toolTurn([{ id: "call_q", name: NAME, args }]), textTurn("SQLite it is"));
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const outcome = await handle.prompt(
      [{ type: "text", text: "set up storage" }],
      new AbortController().signal,
    );

    expect(outcome.reason).toBe("end_turn");
    expect(toolNames(server.requests[0])).toContain(NAME);
    expect(provider.requests).toEqual([
      { sessionId: handle.sessionId, toolCallId: "call_q", questions: sampleQuestions },
    ]);
    expect(toolMessages(server.requests[1])).toEqual([
      {
        tool_call_id: "call_q",
        content: [
          "The user answered:",
          "1. [Database] Which database should the service use?",
          "   Answer: SQLite",
          "2. Which features ship first?",
          "   Answer (in the user's own words): auth only",
        ].join("\n"),
      },
    ]);
  });

  test("a cancel while the question is open ends the turn cancelled", async () => {
    const provider = recordingQuestioner(untilAborted);
    const agent = agentWith([provider]);
    server.script(toolTurn([{ id: "call_q", name: NAME, args }]));
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const stop = new AbortController();
    const running = handle.prompt([{ type: "text", text: "set up storage" }], stop.signal);
    await provider.asked();
    stop.abort();
    expect((await running).reason).toBe("cancelled");
    expect(server.requests).toHaveLength(1);
  });

  test("called from history where nobody can be asked, it answers at once and the turn goes on", async () => {
    const agent = agentWith();
    server.script(toolTurn([{ id: "call_q", name: NAME, args }]), textTurn("I will assume SQLite"));
    await using handle = await agent.composition.service.create({ cwd: agent.cwd });
    const outcome = await handle.prompt(
      [{ type: "text", text: "set up storage" }],
      new AbortController().signal,
    );
    expect(outcome.reason).toBe("end_turn");
    expect(toolMessages(server.requests[1])).toEqual([
      { tool_call_id: "call_q", content: UNAVAILABLE_OUTPUT },
    ]);
  });
});
