/**
 * A whole dsh behind the in-process ACP rig: the real composition (temp `DSH_HOME`, real agent
 * service, tools and sandbox) talking to the scripted model server, the ACP approval answerer
 * wired into its approval seam, and a client that has already sent Zed's `initialize`.
 */
import * as acp from "@agentclientprotocol/sdk";
import { createAcpApprovalAnswerer } from "../../src/acp/approval.ts";
import {
  type AcpHarness,
  type AcpHarnessOptions,
  startAcpHarness,
  zedInitialize,
} from "./acp-harness.ts";
import { type TestAgent, createTestAgent } from "./agent.ts";
import { type ModelServer, startModelServer } from "./model-server.ts";

export interface AcpFixtureOptions {
  /** Whether the client advertises Zed's terminal cards (default true). */
  readonly terminalOutput?: boolean;
  readonly onPermission?: AcpHarnessOptions["onPermission"];
  readonly env?: Record<string, string>;
  readonly signal?: AbortSignal;
}

export interface AcpFixture extends AsyncDisposable {
  readonly model: ModelServer;
  readonly agent: TestAgent;
  readonly h: AcpHarness;
  readonly initialize: acp.InitializeResponse;
  /** Opens a session in the fixture's project directory (or `cwd`). */
  newSession(cwd?: string): Promise<acp.NewSessionResponse>;
  /** Sends a text prompt. */
  prompt(sessionId: string, text: string): Promise<acp.PromptResponse>;
}

export async function startAcpFixture(options: AcpFixtureOptions = {}): Promise<AcpFixture> {
  const model = await startModelServer();
  const approvals = createAcpApprovalAnswerer();
  const agent = createTestAgent({
    baseUrl: model.url,
    answerers: [approvals],
    env: options.env,
  });
  const h = startAcpHarness({
    service: agent.composition.service,
    models: agent.composition.models,
    approvals,
    onPermission: options.onPermission,
    signal: options.signal,
  });
  const initialize = await h.agent.request(
    acp.methods.agent.initialize,
    zedInitialize(options.terminalOutput ?? true),
  );
  return {
    model,
    agent,
    h,
    initialize,
    newSession: (cwd) =>
      h.agent.request(acp.methods.agent.session.new, { cwd: cwd ?? agent.cwd, mcpServers: [] }),
    prompt: (sessionId, text) =>
      h.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text }],
      }),
    async [Symbol.asyncDispose]() {
      await h.disconnect();
      await agent[Symbol.asyncDispose]();
      await model[Symbol.asyncDispose]();
    },
  };
}

/** Expects an ACP error with `code`; returns it. */
export async function rejection(promise: Promise<unknown>): Promise<acp.RequestError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof acp.RequestError) return error;
    throw error;
  }
  throw new Error("expected the request to fail");
}
