/**
 * A whole dsh behind the in-process ACP rig, with the approval chain and the config file under
 * the test's control: the ACP answerer first, then whatever answerers the test adds after it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { createAcpApprovalAnswerer } from "../../src/acp/approval.ts";
import type { ApprovalAnswerer, ApprovalRequest } from "../../src/approval/types.ts";
import {
  type AcpHarness,
  type AcpHarnessOptions,
  startAcpHarness,
  zedInitialize,
} from "../support/acp-harness.ts";
import { type TestAgent, createTestAgent } from "../support/agent.ts";
import { type ModelServer, startModelServer } from "../support/model-server.ts";

export interface RigOptions {
  /** Answerers after the ACP one, in order. */
  readonly after?: readonly ApprovalAnswerer[];
  /** Leave the ACP answerer out of the approval chain entirely. */
  readonly withoutAcp?: boolean;
  readonly onPermission?: AcpHarnessOptions["onPermission"];
  readonly configToml?: string;
  readonly env?: Record<string, string>;
}

export interface Rig extends AsyncDisposable {
  readonly model: ModelServer;
  readonly agent: TestAgent;
  readonly h: AcpHarness;
  /** The ACP answerer (registered sessions route through it even when it is not chained). */
  readonly approvals: ReturnType<typeof createAcpApprovalAnswerer>;
  newSession(): Promise<acp.NewSessionResponse>;
  prompt(sessionId: string, text: string): Promise<acp.PromptResponse>;
  setOption(
    sessionId: string,
    configId: string,
    value: string,
  ): Promise<acp.SetSessionConfigOptionResponse>;
  /** The session's log file, parsed line by line (header first). */
  logLines(sessionId: string): Record<string, unknown>[];
}

export async function startRig(options: RigOptions = {}): Promise<Rig> {
  const model = await startModelServer();
  const approvals = createAcpApprovalAnswerer();
  const answerers = [...(options.withoutAcp === true ? [] : [approvals]), ...(options.after ?? [])];
  const agent = createTestAgent({
    baseUrl: model.url,
    answerers,
    configToml: options.configToml,
    env: options.env,
  });
  const h = startAcpHarness({
    service: agent.composition.service,
    models: agent.composition.models,
    approvals,
    onPermission: options.onPermission,
  });
  await h.agent.request(acp.methods.agent.initialize, zedInitialize(false));
  const m = acp.methods.agent.session;
  return {
    model,
    agent,
    h,
    approvals,
    newSession: () => h.agent.request(m.new, { cwd: agent.cwd, mcpServers: [] }),
    prompt: (sessionId, text) =>
      h.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text }] }),
    setOption: (sessionId, configId, value) =>
      h.agent.request(m.setConfigOption, { sessionId, configId, value }),
    logLines: (sessionId) => readLog(agent.home, sessionId),
    async [Symbol.asyncDispose]() {
      await h.disconnect();
      await agent[Symbol.asyncDispose]();
      await model[Symbol.asyncDispose]();
    },
  };
}

/** A session log under `home`, parsed line by line (header first). */
export function readLog(home: string, sessionId: string): Record<string, unknown>[] {
  const text = readFileSync(join(home, "sessions", `${sessionId}.jsonl`), "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed !== "object" || parsed === null) throw new Error(`not an object: ${line}`);
      return { ...parsed };
    });
}

/** An answerer that records what reaches it and answers with `decision` (or throws). */
export function recordingAnswerer(decision: "allow" | "deny" | "pass" | "throw") {
  const requests: ApprovalRequest[] = [];
  const answerer: ApprovalAnswerer = {
    async answer(request) {
      requests.push(request);
      if (decision === "throw") throw new Error("answerer broke");
      return decision;
    },
  };
  return { answerer, requests };
}

/** The current value of each config option, by id. */
export function currentValues(
  options: readonly acp.SessionConfigOption[] | null | undefined,
): Record<string, unknown> {
  return Object.fromEntries((options ?? []).map((o) => [o.id, o.currentValue]));
}

/** The values a select option offers. */
export function offered(
  options: readonly acp.SessionConfigOption[] | null | undefined,
  id: string,
): string[] {
  const option = (options ?? []).find((o) => o.id === id);
  if (option === undefined || option.type !== "select") return [];
  return option.options.flatMap((c) => ("value" in c ? [c.value] : c.options.map((o) => o.value)));
}
