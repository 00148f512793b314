/**
 * In-process ACP test rig: `runAcpServer` on one side of two byte pipes, the SDK's client app
 * on the other, and a tap on the agent's bytes that parses every line as JSON-RPC and checks
 * it against the schema per method (acp.md §1.8, §13). Closing the client's pipe is stdin EOF.
 */
import * as acp from "@agentclientprotocol/sdk";
import { runAcpServer } from "../../src/acp/server.ts";
import type { AcpApprovalRegistry, AcpFormRegistry, AcpModel } from "../../src/acp/types.ts";
import type { AgentService } from "../../src/agent/types.ts";
import { type Logger, silentLogger } from "../../src/log.ts";
import { createAcpValidator } from "./acp-schema.ts";

export interface AcpHarnessOptions {
  readonly service: AgentService;
  readonly models: () => readonly AcpModel[];
  readonly approvals?: AcpApprovalRegistry;
  readonly questions?: AcpFormRegistry;
  /** How the client answers `elicitation/create`; cancels by default. */
  readonly onElicit?: (params: acp.CreateElicitationRequest) => acp.CreateElicitationResponse;
  /** How the client answers permission requests; rejects by default. */
  readonly onPermission?: (
    params: acp.RequestPermissionRequest,
    signal: AbortSignal,
  ) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;
  readonly signal?: AbortSignal;
  readonly logger?: Logger;
}

/** One message the agent wrote, parsed. */
export interface WireMessage {
  readonly jsonrpc?: unknown;
  readonly id?: unknown;
  readonly method?: string;
  readonly params?: unknown;
  readonly result?: unknown;
  readonly error?: unknown;
}

export interface AcpHarness extends AsyncDisposable {
  /** Calls agent methods. */
  readonly agent: acp.ClientContext;
  /** Every message the agent wrote, in wire order. */
  readonly sent: readonly WireMessage[];
  /** Every message the client wrote, in wire order. */
  readonly inbound: readonly WireMessage[];
  /** Schema and framing problems found in what the agent wrote. */
  readonly problems: readonly string[];
  /** Updates the client app received for a session, in order. */
  updates(sessionId: string): acp.SessionUpdate[];
  /** Resolves with the first received update of `sessionId` that `match` accepts. */
  waitForUpdate(
    sessionId: string,
    match: (update: acp.SessionUpdate) => boolean,
  ): Promise<acp.SessionUpdate>;
  /** Permission requests the client received. */
  readonly permissions: readonly acp.RequestPermissionRequest[];
  /** Resolves when `runAcpServer` has returned. */
  readonly done: Promise<void>;
  /** Ends the client's byte stream (stdin EOF) and waits for the server to return. */
  disconnect(): Promise<void>;
}

/** Starts a server and connects a client; `initialize` is left to the test. */
export function startAcpHarness(options: AcpHarnessOptions): AcpHarness {
  const validator = createAcpValidator();
  const sent: WireMessage[] = [];
  const problems: string[] = [];
  const received = new Map<string, acp.SessionUpdate[]>();
  const watchers = new Set<{
    sessionId: string;
    match: (u: acp.SessionUpdate) => boolean;
    resolve: (u: acp.SessionUpdate) => void;
  }>();
  const permissions: acp.RequestPermissionRequest[] = [];

  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const toAgent = new TransformStream<Uint8Array, Uint8Array>();
  const toClientWriter = toClient.writable.getWriter();
  const toAgentWriter = toAgent.writable.getWriter();
  const outbound = lineReader((line) => {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      problems.push(`not JSON: ${line.slice(0, 200)}`);
      return;
    }
    problems.push(...validator.outbound(message));
    if (typeof message === "object" && message !== null) sent.push({ ...message });
  });
  const fromClient: WireMessage[] = [];
  const inbound = lineReader((line) => {
    const message: unknown = JSON.parse(line);
    validator.inbound(message);
    if (typeof message === "object" && message !== null) fromClient.push({ ...message });
  });

  const done = runAcpServer({
    service: options.service,
    models: options.models,
    version: "0.0.0-test",
    logger: options.logger ?? silentLogger,
    input: toAgent.readable,
    output: new WritableStream({
      async write(chunk) {
        outbound(chunk);
        await toClientWriter.write(chunk);
      },
      async close() {
        await toClientWriter.close();
      },
    }),
    approvals: options.approvals,
    questions: options.questions,
    signal: options.signal,
  });

  const connection = acp
    .client({ name: "test-client" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      const list = received.get(params.sessionId) ?? [];
      list.push(params.update);
      received.set(params.sessionId, list);
      for (const watcher of watchers) {
        if (watcher.sessionId === params.sessionId && watcher.match(params.update)) {
          watchers.delete(watcher);
          watcher.resolve(params.update);
        }
      }
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }) => {
      permissions.push(params);
      if (options.onPermission !== undefined) return options.onPermission(params, signal);
      return { outcome: { outcome: "selected", optionId: "reject" } };
    })
    .onRequest(
      acp.methods.client.elicitation.create,
      ({ params }) => options.onElicit?.(params) ?? { action: "cancel" },
    )
    .connect(
      acp.ndJsonStream(
        new WritableStream({
          async write(chunk) {
            inbound(chunk);
            await toAgentWriter.write(chunk);
          },
        }),
        toClient.readable,
      ),
    );

  let disconnected: Promise<void> | undefined;
  const disconnect = () => {
    disconnected ??= (async () => {
      await toAgentWriter.close().catch(() => undefined);
      await done;
      connection.close();
    })();
    return disconnected;
  };

  return {
    agent: connection.agent,
    sent,
    inbound: fromClient,
    problems,
    permissions,
    updates: (sessionId) => [...(received.get(sessionId) ?? [])],
    waitForUpdate(sessionId, match) {
      const seen = (received.get(sessionId) ?? []).find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      const { promise, resolve } = Promise.withResolvers<acp.SessionUpdate>();
      watchers.add({ sessionId, match, resolve });
      return promise;
    },
    done,
    disconnect,
    [Symbol.asyncDispose]: disconnect,
  };
}

/** Splits a byte stream into LF-terminated lines. */
function lineReader(onLine: (line: string) => void): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  let buffer = "";
  return (chunk) => {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim() !== "") onLine(line);
      newline = buffer.indexOf("\n");
    }
  };
}

/** The `initialize` params Zed sends (zed.md §8), with or without terminal cards. */
export function zedInitialize(terminalOutput: boolean): acp.InitializeRequest {
  return {
    protocolVersion: 1,
    clientCapabilities: {
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      auth: { terminal: true },
      session: { configOptions: { boolean: {} } },
      elicitation: { form: {}, url: {} },
      _meta: terminalOutput
        ? { terminal_output: true, "terminal-auth": true }
        : { "terminal-auth": true },
    },
    clientInfo: { name: "zed", title: "Zed", version: "0.230.0" },
  };
}

/** Where on the wire the agent answered the client's last `method` request for `sessionId`. */
export function responseIndex(harness: AcpHarness, method: string, sessionId: string): number {
  const request = harness.inbound.findLast(
    (m) =>
      m.method === method &&
      typeof m.params === "object" &&
      m.params !== null &&
      "sessionId" in m.params &&
      m.params.sessionId === sessionId,
  );
  if (request === undefined) return -1;
  return harness.sent.findIndex((m) => m.method === undefined && m.id === request.id);
}
