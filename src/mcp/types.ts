/**
 * Contracts of dsh's MCP client: the servers a session starts, their states as surfaces show
 * them, and the options every session's servers share.
 */
import * as v from "valibot";
import type { UserContent } from "../session/events.ts";
import type { ToolRegistry } from "../tools/types.ts";
import type { McpPrompt } from "./prompts.ts";

/** Environment variables and headers: names to values. */
const StringMap = v.record(v.string(), v.string());

/** A server dsh starts as a child process and talks to over stdin/stdout. */
export const StdioServerSpec = v.object({
  transport: v.literal("stdio"),
  name: v.string(),
  command: v.string(),
  args: v.array(v.string()),
  /** Exactly what this server gets on top of the scrubbed command environment. */
  env: StringMap,
});
export type StdioServerSpec = v.InferOutput<typeof StdioServerSpec>;

/**
 * The transports of a server reached over HTTP: `http` is streamable HTTP, falling back to SSE
 * when the server does not speak it; `sse` is the older SSE transport only. The config file's
 * `transport`, the editor's `mcpServers` entries and ACP's `mcpCapabilities` all take this list.
 */
export const REMOTE_TRANSPORTS = ["http", "sse"] as const;

/** A server reached over HTTP, by one of REMOTE_TRANSPORTS. */
export const RemoteServerSpec = v.object({
  transport: v.picklist(REMOTE_TRANSPORTS),
  name: v.string(),
  url: v.pipe(v.string(), v.url()),
  headers: StringMap,
});
export type RemoteServerSpec = v.InferOutput<typeof RemoteServerSpec>;

/** One MCP server of a session, from the editor's `mcpServers` or the config file. */
export const McpServerSpec = v.variant("transport", [StdioServerSpec, RemoteServerSpec]);
export type McpServerSpec = v.InferOutput<typeof McpServerSpec>;

/** Where a server is in its life: its tools are offered only while `ready`. */
export type McpServerState = "starting" | "ready" | "failed" | "stopped";

/** A server as `/status` and `dsh doctor` show it. */
export interface McpServerStatus {
  readonly name: string;
  readonly state: McpServerState;
  /** Tools offered to the model now (0 unless `ready`). */
  readonly tools: number;
  /** Why it failed, for `failed`. */
  readonly error?: string;
}

/** Something the user should be told once: a server failed to start, died or timed out. */
export interface McpNotice {
  readonly severity: "warning" | "error";
  readonly title: string;
  readonly description?: string;
}

/** A session's MCP servers, running: their tools, states and prompts. */
export interface McpServers extends AsyncDisposable {
  /** The servers' tools now, as a registry (a new one after any change, the same until then). */
  registry(): ToolRegistry;
  statuses(): McpServerStatus[];
  /** Resolves when no server is starting any more (each start has its deadline) or on abort. */
  started(signal: AbortSignal): Promise<void>;
  /** The prompts of each ready server, in the servers' order. */
  prompts(): readonly { readonly server: string; readonly prompts: readonly McpPrompt[] }[];
  /**
   * Gets a prompt of a ready server as a turn's content. Rejects with a message fit for the
   * user when the server is not ready or fails (or with the signal's reason once it aborts).
   */
  getPrompt(
    server: string,
    prompt: string,
    args: Record<string, string>,
    signal: AbortSignal,
  ): Promise<UserContent[]>;
}

/** What every session's servers share, set once by the composition. */
export interface McpOptions {
  /** The config file's servers, started for every session (a session's own win a name clash). */
  readonly servers: readonly McpServerSpec[];
  /** The parent environment, scrubbed before a stdio server sees it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** HOME for stdio servers. */
  readonly home: string;
  /** The `[env]` table's extra names and secrets allowed through. */
  readonly include: readonly string[];
  readonly allowSecret: readonly string[];
  /** How long a server may take to connect and list its tools. */
  readonly startupTimeoutMs: number;
  /** How long one tool call may take before it fails as timed out. */
  readonly toolTimeoutMs: number;
}

/** Merges the config file's servers with a session's own: the session's entry wins a name. */
export function mergeServers(
  configured: readonly McpServerSpec[],
  session: readonly McpServerSpec[],
): McpServerSpec[] {
  const byName = new Map<string, McpServerSpec>();
  for (const spec of [...configured, ...session]) byName.set(spec.name, spec);
  return [...byName.values()];
}
