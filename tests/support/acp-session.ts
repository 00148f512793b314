/**
 * One scripted model server for a test file, and compiled `dsh acp` processes against it, each
 * with one new session: the start of most end-to-end cases of the agent's tools.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import * as acp from "@agentclientprotocol/sdk";
import { zedInitialize } from "./acp-harness.ts";
import { type AcpProcess, type AcpProcessOptions, spawnAcp } from "./acp-process.ts";
import { type ModelServer, startModelServer } from "./model-server.ts";

export interface AcpSessionRig {
  /** The file's model server (from `beforeAll` on). */
  readonly model: () => ModelServer;
  /**
   * A fresh `dsh acp` with one new session; `setup` writes into its project first. With
   * `terminalOutput` the client takes terminal cards.
   */
  start(options?: {
    readonly setup?: (cwd: string) => void;
    readonly terminalOutput?: boolean;
    readonly env?: Record<string, string>;
    readonly onPermission?: AcpProcessOptions["onPermission"];
    readonly configToml?: string;
    readonly asUser?: number;
  }): Promise<{ dsh: AcpProcess; sessionId: string }>;
}

/** Registers the file's model server (its failures fail the file) and returns the rig. */
export function acpSessionRig(): AcpSessionRig {
  let model: ModelServer | undefined;
  beforeAll(async () => {
    model = await startModelServer();
  });
  afterAll(async () => {
    expect(model?.failures).toEqual([]);
    await model?.[Symbol.asyncDispose]();
  });
  const current = () => {
    if (model === undefined) throw new Error("the model server starts in beforeAll");
    return model;
  };
  return {
    model: current,
    async start(options = {}) {
      const dsh = await spawnAcp({
        baseUrl: current().url,
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.onPermission === undefined ? {} : { onPermission: options.onPermission }),
        ...(options.configToml === undefined ? {} : { configToml: options.configToml }),
        ...(options.asUser === undefined ? {} : { asUser: options.asUser }),
      });
      options.setup?.(dsh.cwd);
      await dsh.agent.request(
        acp.methods.agent.initialize,
        zedInitialize(options.terminalOutput ?? false),
      );
      const { sessionId } = await dsh.agent.request(acp.methods.agent.session.new, {
        cwd: dsh.cwd,
        mcpServers: [],
      });
      return { dsh, sessionId };
    },
  };
}
