/**
 * A session's MCP servers: each starts in the background when the session opens, its tools
 * (and prompts, as slash commands) are offered while it is up, and a server that fails to start, dies or times out is reported
 * once and withdrawn; the session goes on without it. At most one connection per server.
 */
import { version } from "../../package.json";
import { untilAborted } from "../abortable.ts";
import { ConflictError, errorMessage } from "../errors.ts";
import { isDshCredential, scrubEnv } from "../exec/env.ts";
import type { Logger } from "../log.ts";
import { createToolRegistry } from "../tools/registry.ts";
import type { AnyTool, ToolRegistry } from "../tools/types.ts";
import type { McpConnection } from "./connect.ts";
import { realpathOr } from "../paths.ts";
import { projectRootOf } from "../rules/project.ts";
import { projectSafeCommand, serverSearchPath } from "./server-command.ts";
import { createMcpTool } from "./tool.ts";
import type { McpNotice, McpOptions, McpServers, McpServerSpec, McpServerState } from "./types.ts";

export interface McpServersDeps {
  readonly specs: readonly McpServerSpec[];
  /** The session root: stdio servers run in it. */
  readonly cwd: string;
  readonly options: McpOptions;
  readonly logger: Logger;
  /** Tells the user once about a server that failed or stopped. */
  readonly report: (notice: McpNotice) => void;
  /** Called whenever the prompts offered may have changed: a server is up or gone, a list changed. */
  readonly onPromptsChanged?: () => void;
}

/** Servers one session starts at most; more are reported, not started. */
const MAX_SERVERS = 32;
/**
 * MCP tools offered at most, over all of a session's servers: the OpenAI-compatible APIs
 * take 128 tools per request, and the core tools need their share.
 */
const MAX_MCP_TOOLS = 100;

interface Entry {
  readonly spec: McpServerSpec;
  state: McpServerState;
  error?: string;
  connection?: McpConnection;
  start?: Promise<void>;
}

/** The SDK and its transports load at the first session that has servers. */
let connector: Promise<typeof import("./connect.ts")> | undefined;
const loadConnector = () => {
  connector ??= import("./connect.ts");
  return connector;
};

/**
 * The ready servers' tools as one registry: at most MAX_MCP_TOOLS, and each name kept by the
 * tool that first held it (`owners`, for the session's lifetime).
 */
function offeredTools(
  entries: Iterable<Entry>,
  owners: Map<string, string>,
  logger: Logger,
): ToolRegistry {
  const tools: AnyTool[] = [];
  const names = new Set<string>();
  for (const entry of entries) {
    const { connection } = entry;
    if (entry.state !== "ready" || connection === undefined) continue;
    for (const info of connection.tools()) {
      const tool = createMcpTool({
        server: entry.spec.name,
        info,
        call: (args, signal) => connection.call(info.name, args, signal),
      });
      if (tools.length >= MAX_MCP_TOOLS) {
        logger.warn("too many mcp tools; tool not offered", {
          server: entry.spec.name,
          tool: info.name,
          max: MAX_MCP_TOOLS,
        });
        continue;
      }
      // Names meet only when a tool's name imitates another's digest: the first tool to hold
      // a name keeps it for the session, so a name never changes meaning between requests.
      const owner = JSON.stringify([entry.spec.name, info.name]);
      const holder = owners.get(tool.name);
      if (names.has(tool.name) || (holder !== undefined && holder !== owner)) {
        logger.warn("mcp tool name taken; tool not offered", {
          server: entry.spec.name,
          tool: info.name,
        });
        continue;
      }
      owners.set(tool.name, owner);
      names.add(tool.name);
      tools.push(tool);
    }
  }
  return createToolRegistry(tools, { logger });
}

/** Starts every server of `specs` in the background. */
export function startMcpServers(deps: McpServersDeps): McpServers {
  const { logger } = deps;
  // The servers' own lifetime, apart from any turn's: disposal ends every start under way.
  const stop = new AbortController();
  const entries = new Map<string, Entry>();
  /** Which server's tool each offered name belongs to, for the session's lifetime. */
  const owners = new Map<string, string>();
  // Where sandboxed commands can write: no server command is found there.
  const project = [...new Set([realpathOr(deps.cwd), realpathOr(projectRootOf(deps.cwd))])];
  let current: ToolRegistry | undefined;
  const changed = () => {
    current = undefined;
  };

  const fail = (entry: Entry, title: string, reason: string) => {
    if (entry.state === "failed" || entry.state === "stopped") return;
    entry.state = "failed";
    entry.error = reason;
    changed();
    deps.onPromptsChanged?.();
    logger.warn("mcp server failed", { server: entry.spec.name, reason });
    deps.report({
      severity: "warning",
      title,
      description: `${reason}; its tools are not available`,
    });
  };

  const start = async (entry: Entry) => {
    const { spec } = entry;
    // After the current I/O turn: the answer to the request that opened the session goes out
    // before the SDK loads and processes spawn.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      if (stop.signal.aborted) return;
      const { connectMcpServer } = await loadConnector();
      let env: Record<string, string> = {};
      let target: McpServerSpec = spec;
      if (spec.transport === "stdio") {
        env = serverEnv(spec.env, deps, logger);
        const search = serverSearchPath(env.PATH, project);
        if (search.dropped.length > 0) {
          logger.info("mcp server PATH entries left out: sandboxed commands can write them", {
            server: spec.name,
            entries: search.dropped.map(({ entry }) => entry),
          });
        }
        env.PATH = search.path;
        const found = projectSafeCommand(spec.command, deps.cwd, search, project);
        if (!found.ok) {
          fail(entry, `MCP server ${label(spec.name)} did not start`, found.reason);
          return;
        }
        target = { ...spec, command: found.path };
      }
      const connection = await connectMcpServer({
        spec: target,
        cwd: deps.cwd,
        env,
        version,
        logger,
        signal: stop.signal,
        startupTimeoutMs: deps.options.startupTimeoutMs,
        toolTimeoutMs: deps.options.toolTimeoutMs,
        onToolsChanged: changed,
        onPromptsChanged: () => deps.onPromptsChanged?.(),
        onLost: (reason) => {
          fail(entry, `MCP server ${label(spec.name)} stopped`, reason);
          void entry.connection?.close();
        },
      });
      if (stop.signal.aborted) {
        await connection.close();
        return;
      }
      entry.connection = connection;
      entry.state = "ready";
      changed();
      deps.onPromptsChanged?.();
      logger.info("mcp server ready", {
        server: spec.name,
        tools: connection.tools().length,
        prompts: connection.prompts().length,
      });
    } catch (error) {
      if (stop.signal.aborted) return;
      fail(entry, `MCP server ${label(spec.name)} did not start`, errorMessage(error));
    }
  };

  for (const [index, spec] of deps.specs.entries()) {
    const entry: Entry = { spec, state: "starting" };
    entries.set(spec.name, entry);
    if (index < MAX_SERVERS) entry.start = start(entry);
    else
      fail(
        entry,
        `MCP server ${label(spec.name)} not started`,
        `a session runs at most ${MAX_SERVERS} servers`,
      );
  }

  return {
    registry() {
      current ??= offeredTools(entries.values(), owners, logger);
      return current;
    },
    statuses: () =>
      [...entries.values()].map((entry) => ({
        name: entry.spec.name,
        state: entry.state,
        tools: entry.state === "ready" ? (entry.connection?.tools().length ?? 0) : 0,
        ...(entry.error === undefined ? {} : { error: entry.error }),
      })),
    async started(signal) {
      await untilAborted(Promise.all([...entries.values()].map((e) => e.start)), signal);
    },
    prompts: () =>
      [...entries.values()].flatMap((entry) =>
        entry.state === "ready" && entry.connection !== undefined
          ? [{ server: entry.spec.name, prompts: entry.connection.prompts() }]
          : [],
      ),
    async getPrompt(server, prompt, args, signal) {
      const entry = entries.get(server);
      if (entry?.state !== "ready" || entry.connection === undefined) {
        const state = entry === undefined ? "not one of this session's" : entry.state;
        throw new ConflictError(`MCP server ${label(server)} is ${state}`, {
          server: label(server),
        });
      }
      return entry.connection.getPrompt(prompt, args, signal);
    },
    async [Symbol.asyncDispose]() {
      stop.abort();
      await Promise.all(
        [...entries.values()].map(async (entry) => {
          entry.state = "stopped";
          await entry.connection?.close();
          await entry.start;
        }),
      );
      changed();
    },
  };
}

/** A server's name as messages show it: cut, so a huge name cannot flood the answer. */
function label(name: string): string {
  return name.length <= 64 ? name : `${name.slice(0, 63)}…`;
}

/** The scrubbed command environment plus exactly the server's own `env`, minus dsh's keys. */
function serverEnv(
  own: Readonly<Record<string, string>>,
  deps: McpServersDeps,
  logger: Logger,
): Record<string, string> {
  const { env } = scrubEnv(deps.options.env, {
    backend: "none",
    home: deps.options.home,
    cwd: deps.cwd,
    include: deps.options.include,
    allowSecret: deps.options.allowSecret,
  });
  for (const [name, value] of Object.entries(own)) {
    if (isDshCredential(name)) {
      logger.warn("dsh's API key is never passed to an MCP server", { variable: name });
      continue;
    }
    env[name] = value;
  }
  return env;
}
