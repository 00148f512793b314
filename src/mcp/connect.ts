/**
 * One connection to one MCP server through the official SDK client: connect (initialize and
 * the first tool list within a deadline), keep the tool list fresh on `tools/list_changed`, and
 * call tools with the turn's signal and a timeout. Every failure of a call is a tool result the
 * model can read. This module is loaded at the first session that has servers, never on the
 * way to `initialize`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  McpError,
  type Tool as McpTool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { ToolResult } from "../tools/types.ts";
import { resultText } from "./result.ts";
import { createStdioTransport } from "./stdio-transport.ts";
import type { McpServerSpec, RemoteServerSpec } from "./types.ts";

export type { McpTool };

/** Pages of `tools/list` read at most (a server that pages forever is cut off). */
const MAX_TOOL_PAGES = 50;

export interface ConnectOptions {
  readonly spec: McpServerSpec;
  /** The session root: a stdio server's working directory. */
  readonly cwd: string;
  /** A stdio server's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly version: string;
  readonly logger: Logger;
  /** Aborted when the session closes before the server is up. */
  readonly signal: AbortSignal;
  /** How long connecting and listing the tools may take. */
  readonly startupTimeoutMs: number;
  readonly toolTimeoutMs: number;
  /** Called after the tool list changed (a refresh finished). */
  readonly onToolsChanged: () => void;
  /** Called once when a connected server goes away on its own, with the reason. */
  readonly onLost: (reason: string) => void;
}

export interface McpConnection {
  /** The server's tools as last listed. */
  tools(): readonly McpTool[];
  /** Calls a tool. Never throws except for an abort of `signal`. */
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult>;
  /** Stops the server (a stdio server's whole process group). Idempotent. */
  close(): Promise<void>;
}

/** Connects and lists the tools; rejects with a message fit for the user. */
export async function connectMcpServer(options: ConnectOptions): Promise<McpConnection> {
  const { spec, logger } = options;
  const deadline = AbortSignal.timeout(options.startupTimeoutMs);
  const signal = AbortSignal.any([options.signal, deadline]);
  let tools: readonly McpTool[] = [];
  let refreshing: Promise<void> | undefined;
  let closing = false;
  let transport: Transport | undefined;
  const stdio =
    spec.transport === "stdio"
      ? createStdioTransport({
          server: spec.name,
          command: spec.command,
          args: spec.args,
          cwd: options.cwd,
          env: options.env,
          logger,
        })
      : undefined;
  const exitReason = () => {
    const reason = stdio?.exitReason();
    return reason === undefined ? undefined : `the server ${reason}`;
  };

  const client = new Client({ name: "dsh", version: options.version }, { capabilities: {} });
  // Out-of-band problems (a stdout line that is not JSON-RPC): the connection goes on.
  client.onerror = (error) => logger.debug("mcp connection error", { server: spec.name, error });
  let queued = false;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    // A change announced during a refresh is listed again after it; announcements that
    // arrive while one listing is already queued share it.
    if (queued) return;
    queued = true;
    const previous = refreshing ?? Promise.resolve();
    const current: Promise<void> = previous.then(async () => {
      queued = false;
      try {
        tools = await listTools(client, AbortSignal.timeout(options.toolTimeoutMs));
        options.onToolsChanged();
      } catch (error) {
        logger.warn("mcp server tool list refresh failed", { server: spec.name, error });
      } finally {
        if (refreshing === current) refreshing = undefined;
      }
    });
    refreshing = current;
  });

  const stop = async () => {
    closing = true;
    await client.close().catch(() => undefined);
    await transport?.close().catch(() => undefined);
  };

  try {
    transport = stdio ?? remoteTransport(spec);
    await connectWithFallback(client, transport, spec, signal, options.logger, (fallback) => {
      transport = fallback;
    });
    signal.throwIfAborted();
    tools = await listTools(client, signal);
  } catch (error) {
    await stop();
    if (deadline.aborted && !options.signal.aborted)
      throw new Error(`it did not start within ${options.startupTimeoutMs} ms`);
    throw new Error(exitReason() ?? errorMessage(error));
  }

  client.onclose = () => {
    if (closing) return;
    const reason = exitReason() ?? "the server closed the connection";
    options.onLost(reason);
  };

  return {
    tools: () => tools,
    async call(tool, args, callSignal) {
      try {
        const result = await client.callTool({ name: tool, arguments: args }, undefined, {
          signal: callSignal,
          timeout: options.toolTimeoutMs,
        });
        // A list change the call caused is in place before the model's next request.
        await refreshing;
        return resultText(result);
      } catch (error) {
        if (callSignal.aborted) throw error;
        return { isError: true, output: callFailure(error, options.toolTimeoutMs, exitReason()) };
      }
    },
    close: stop,
  };
}

/** No request deadline of the SDK's own: the caller's signal bounds every request. */
const NO_TIMEOUT = 2 ** 31 - 1;

function remoteTransport(spec: McpServerSpec): Transport {
  // Never reached for stdio, whose transport the caller built; kept total for the type.
  if (spec.transport === "stdio") throw new Error("a stdio server has no URL");
  if (!URL.canParse(spec.url))
    throw new Error(`not a URL: ${JSON.stringify(spec.url.slice(0, 200))}`);
  if (spec.transport === "sse") return sseTransport(spec);
  return new StreamableHTTPClientTransport(new URL(spec.url), {
    requestInit: { headers: spec.headers },
  });
}

/**
 * Connects over `transport`. A streamable HTTP server that answers the first POST with a 4xx
 * speaks only the older SSE transport: then SSE is tried, and `onFallback` gets its transport.
 */
async function connectWithFallback(
  client: Client,
  transport: Transport,
  spec: McpServerSpec,
  signal: AbortSignal,
  logger: Logger,
  onFallback: (transport: Transport) => void,
): Promise<void> {
  try {
    await client.connect(transport, { signal, timeout: NO_TIMEOUT });
  } catch (error) {
    const oldServer =
      spec.transport === "http" &&
      error instanceof StreamableHTTPError &&
      error.code !== undefined &&
      error.code >= 400 &&
      error.code < 500;
    if (!oldServer || signal.aborted) throw error;
    await transport.close().catch(() => undefined);
    logger.info("mcp server does not take streamable HTTP; trying SSE", {
      server: spec.name,
      status: error.code,
    });
    const fallback = remoteTransport({ ...spec, transport: "sse" });
    onFallback(fallback);
    await client.connect(fallback, { signal, timeout: NO_TIMEOUT });
  }
}

function sseTransport(spec: RemoteServerSpec): SSEClientTransport {
  return new SSEClientTransport(new URL(spec.url), {
    requestInit: { headers: spec.headers },
    eventSourceInit: {
      fetch: (url, init) => fetch(url, { ...init, headers: { ...spec.headers, ...init?.headers } }),
    },
  });
}

async function listTools(client: Client, signal: AbortSignal): Promise<McpTool[]> {
  if (client.getServerCapabilities()?.tools === undefined) return [];
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, {
      signal,
      timeout: NO_TIMEOUT,
    });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

function callFailure(error: unknown, timeoutMs: number, exit: string | undefined): string {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
    return `the MCP tool did not answer within ${timeoutMs} ms`;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)
    return `the MCP server went away: ${exit ?? "the connection closed"}`;
  return `the MCP tool call failed: ${errorMessage(error)}`;
}
