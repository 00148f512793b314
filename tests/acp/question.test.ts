/** ask_user_question over ACP end to end: the real questioner, bridge, agent and model server. */
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import { createAcpQuestioner } from "../../src/acp/elicitation.ts";
import { startAcpHarness, zedInitialize } from "../support/acp-harness.ts";
import { createTestAgent } from "../support/agent.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";

const question = {
  questions: [
    {
      question: "Which database?",
      header: "Database",
      options: [{ label: "SQLite", description: "a file" }, { label: "Postgres" }],
    },
  ],
};

function toolNames(body: Record<string, unknown>): string[] {
  const tools = (body.tools ?? []) as { function: { name: string } }[];
  return tools.map((tool) => tool.function.name);
}

describe("ask_user_question over ACP", () => {
  test("with form elicitation the question arrives as one form and the answer reaches the model", async () => {
    await using model = await startModelServer();
    const questions = createAcpQuestioner();
    await using agent = createTestAgent({ baseUrl: model.url, questioners: [questions] });
    const forms: acp.CreateElicitationRequest[] = [];
    await using h = startAcpHarness({
      service: agent.composition.service,
      models: agent.composition.models,
      questions,
      onElicit: (params) => {
        forms.push(params);
        return { action: "accept", content: { q1: "Postgres" } };
      },
    });
    await h.agent.request(acp.methods.agent.initialize, zedInitialize(true));
    const { sessionId } = await h.agent.request(acp.methods.agent.session.new, {
      cwd: agent.cwd,
      mcpServers: [],
    });
    model.script(
      toolTurn([{ id: "ask1", name: "ask_user_question", args: question }]),
      textTurn("Postgres it is"),
    );
    const response = await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "set up a database" }],
    });
    expect(response.stopReason).toBe("end_turn");
    expect(toolNames(model.requests[0]?.body ?? {})).toContain("ask_user_question");
    expect(forms.length).toBe(1);
    expect(forms[0]).toMatchObject({ mode: "form", sessionId, toolCallId: "ask1" });
    const toolMessage = (
      model.requests[1]!.body.messages as { role: string; content: string }[]
    ).find((m) => m.role === "tool");
    expect(toolMessage?.content).toContain("Postgres");
    expect(h.problems).toEqual([]);
  });

  test("without form elicitation the tool is not offered and the turn goes on", async () => {
    await using model = await startModelServer();
    const questions = createAcpQuestioner();
    await using agent = createTestAgent({ baseUrl: model.url, questioners: [questions] });
    await using h = startAcpHarness({
      service: agent.composition.service,
      models: agent.composition.models,
      questions,
    });
    await h.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    const { sessionId } = await h.agent.request(acp.methods.agent.session.new, {
      cwd: agent.cwd,
      mcpServers: [],
    });
    model.script(textTurn("I will pick SQLite myself"));
    const response = await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "set up a database" }],
    });
    expect(response.stopReason).toBe("end_turn");
    expect(toolNames(model.requests[0]?.body ?? {})).not.toContain("ask_user_question");
    expect(toolNames(model.requests[0]?.body ?? {})).toContain("bash");
    expect(h.problems).toEqual([]);
  });

  test("a dismissed form tells the model the user declined, and the turn goes on", async () => {
    await using model = await startModelServer();
    const questions = createAcpQuestioner();
    await using agent = createTestAgent({ baseUrl: model.url, questioners: [questions] });
    const opened = Promise.withResolvers<void>();
    await using h = startAcpHarness({
      service: agent.composition.service,
      models: agent.composition.models,
      questions,
      onElicit: () => {
        opened.resolve();
        return { action: "cancel" };
      },
    });
    await h.agent.request(acp.methods.agent.initialize, zedInitialize(false));
    const { sessionId } = await h.agent.request(acp.methods.agent.session.new, {
      cwd: agent.cwd,
      mcpServers: [],
    });
    model.script(
      toolTurn([{ id: "ask2", name: "ask_user_question", args: question }]),
      textTurn("you declined"),
    );
    const response = await h.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "ask me" }],
    });
    await opened.promise;
    expect(response.stopReason).toBe("end_turn");
    const toolMessage = (
      model.requests[1]!.body.messages as { role: string; content: string }[]
    ).find((m) => m.role === "tool");
    expect(toolMessage?.content).toContain("declined");
  });
});
