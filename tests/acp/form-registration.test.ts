import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import type { AcpFormRegistry, AcpFormTarget } from "../../src/acp/types.ts";
import { startAcpHarness, zedInitialize } from "../support/acp-harness.ts";
import { createTestAgent } from "../support/agent.ts";
import { startModelServer } from "../support/model-server.ts";

/**
 * Records what the bridge registers, as the interaction provider's registry would. A new
 * session registers once its handle opened, after `session/new` was answered: `registered`
 * waits for that.
 */
function recordingRegistry() {
  const live = new Map<string, AcpFormTarget>();
  const waiting = new Map<string, PromiseWithResolvers<AcpFormTarget>>();
  const waiter = (sessionId: string) => {
    const known = waiting.get(sessionId) ?? Promise.withResolvers<AcpFormTarget>();
    waiting.set(sessionId, known);
    return known;
  };
  const registry: AcpFormRegistry = {
    register(sessionId, target) {
      live.set(sessionId, target);
      waiter(sessionId).resolve(target);
      return () => live.delete(sessionId);
    },
  };
  return { registry, live, registered: (sessionId: string) => waiter(sessionId).promise };
}

describe("live sessions register for questions", () => {
  test("a client with form elicitation gets forms through elicitation/create; closing unregisters", async () => {
    await using model = await startModelServer();
    await using agent = createTestAgent({ baseUrl: model.url });
    const { registry, live, registered } = recordingRegistry();
    const asked: acp.CreateElicitationRequest[] = [];
    await using h = startAcpHarness({
      service: agent.composition.service,
      models: agent.composition.models,
      questions: registry,
      onElicit: (params) => {
        asked.push(params);
        return { action: "accept", content: { colour: "red" } };
      },
    });
    await h.agent.request(acp.methods.agent.initialize, zedInitialize(true));
    const { sessionId } = await h.agent.request(acp.methods.agent.session.new, {
      cwd: agent.cwd,
      mcpServers: [],
    });
    const target = await registered(sessionId);
    expect(target.canElicitForm).toBe(true);
    const params: acp.CreateElicitationRequest = {
      mode: "form",
      sessionId,
      message: "Pick a colour",
      requestedSchema: {
        type: "object",
        properties: {
          colour: { type: "string", title: "Colour", oneOf: [{ const: "red", title: "Red" }] },
        },
        required: ["colour"],
      },
    };
    const answer = await target.elicit(params, new AbortController().signal);
    expect(answer).toEqual({ action: "accept", content: { colour: "red" } });
    expect(asked).toEqual([params]);
    await h.agent.request(acp.methods.agent.session.close, { sessionId });
    expect(live.has(sessionId)).toBe(false);
    expect(h.problems).toEqual([]);
  });

  test("a client without form elicitation registers sessions that cannot ask", async () => {
    await using model = await startModelServer();
    await using agent = createTestAgent({ baseUrl: model.url });
    const { registry, registered } = recordingRegistry();
    await using h = startAcpHarness({
      service: agent.composition.service,
      models: agent.composition.models,
      questions: registry,
    });
    await h.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { elicitation: {} },
    });
    const { sessionId } = await h.agent.request(acp.methods.agent.session.new, {
      cwd: agent.cwd,
      mcpServers: [],
    });
    expect((await registered(sessionId)).canElicitForm).toBe(false);
  });
});
