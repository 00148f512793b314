/**
 * One connection to one MCP server through the official SDK client: connect (initialize and
 * the first tool and prompt lists within a deadline), keep both lists fresh on
 * `tools/list_changed` and `prompts/list_changed`, call tools with the turn's signal and a
 * timeout, and get prompts. Every failure of a call is a tool result the
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
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { ConflictError, errorMessage } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { ToolResult } from "../tools/types.ts";
import type { UserContent } from "../session/events.ts";
import { type McpPrompt, listPrompts, promptContent } from "./prompts.ts";
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
  /** Called after the prompt list changed (a refresh finished). */
  readonly onPromptsChanged?: () => void;
  /** Called once when a connected server goes away on its own, with the reason. */
  readonly onLost: (reason: string) => void;
}

export interface McpConnection {
  /** The server's tools as last listed. */
  tools(): readonly McpTool[];
  /** The server's prompts as last listed. */
  prompts(): readonly McpPrompt[];
  /**
   * Gets a prompt with its arguments as the content of a turn. Rejects with a message fit for
   * the user (or the signal's reason once it aborts).
   */
  getPrompt(
    name: string,
    args: Record<string, string>,
    signal: AbortSignal,
  ): Promise<UserContent[]>;
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
  let prompts: readonly McpPrompt[] = [];
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
  const toolList = createListRefresh({
    load: () => listTools(client, AbortSignal.timeout(options.toolTimeoutMs)),
    apply: (listed) => {
      tools = listed;
      options.onToolsChanged();
    },
    fail: (error) =>
      logger.warn("mcp server tool list refresh failed", { server: spec.name, error }),
  });
  const promptList = createListRefresh({
    load: () => listPrompts(client, AbortSignal.timeout(options.toolTimeoutMs)),
    apply: (listed) => {
      prompts = listed;
      options.onPromptsChanged?.();
    },
    fail: (error) =>
      logger.warn("mcp server prompt list refresh failed", { server: spec.name, error }),
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, toolList.request);
  client.setNotificationHandler(PromptListChangedNotificationSchema, promptList.request);

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
    // A server whose prompt list fails still offers its tools.
    prompts = await listPrompts(client, signal).catch((error: unknown) => {
      signal.throwIfAborted();
      logger.warn("mcp server prompt list failed", { server: spec.name, error });
      return [];
    });
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
        await toolList.settled();
        return resultText(result);
      } catch (error) {
        if (callSignal.aborted) throw error;
        const output = requestFailure(
          error,
          exitReason(),
          `the MCP tool did not answer within ${options.toolTimeoutMs} ms`,
          "the MCP tool call failed",
        );
        return { isError: true, output };
      }
    },
    prompts: () => prompts,
    async getPrompt(name, args, promptSignal) {
      try {
        const result = await client.getPrompt(
          { name, arguments: args },
          {
            signal: promptSignal,
            timeout: options.toolTimeoutMs,
          },
        );
        return promptContent(result);
      } catch (error) {
        if (promptSignal.aborted) throw error;
        throw new ConflictError(
          requestFailure(
            error,
            exitReason(),
            `the MCP server did not send the prompt within ${options.toolTimeoutMs} ms`,
            "the MCP server could not give the prompt",
          ),
        );
      }
    },
    close: stop,
  };
}

/**
 * Re-lists something a server announced a change of: a change announced during a listing is
 * listed again after it, and announcements that arrive while one listing is already queued
 * share it.
 */
function createListRefresh<T>(parts: {
  load: () => Promise<T>;
  apply: (listed: T) => void;
  fail: (error: unknown) => void;
}) {
  let queued = false;
  let refreshing: Promise<void> | undefined;
  return {
    request() {
      if (queued) return;
      queued = true;
      const previous = refreshing ?? Promise.resolve();
      const current: Promise<void> = previous.then(async () => {
        queued = false;
        try {
          parts.apply(await parts.load());
        } catch (error) {
          parts.fail(error);
        } finally {
          if (refreshing === current) refreshing = undefined;
        }
      });
      refreshing = current;
    },
    /** Resolves once no listing is under way. */
    settled: () => refreshing,
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

/** Why a request to the server failed, for the user: `timedOut` for a timeout, else `failed: why`. */
function requestFailure(
  error: unknown,
  exit: string | undefined,
  timedOut: string,
  failed: string,
): string {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return timedOut;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)
    return `the MCP server went away: ${exit ?? "the connection closed"}`;
  return `${failed}: ${errorMessage(error)}`;
}
