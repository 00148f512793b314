/**
 * The agent service: creates and resumes live sessions. Surfaces reach the loop only through
 * the handles it returns. Each session gets its own tool registry: the core tools plus the
 * tools of its MCP servers, which start in the background as the session opens; and its own
 * library of skills, custom commands and MCP prompts, found in the background too.
 */
import { realpath } from "node:fs/promises";
import { checkCwd, checkSameCwd } from "../session/cwd.ts";
import { ConflictError } from "../errors.ts";
import type { McpNotice, McpServerSpec, McpServers } from "../mcp/types.ts";
import type { SessionLog, SessionStore } from "../session/types.ts";
import { type AgentCollaborators, createAgentHandle } from "./handle.ts";
import { createNoticeBox } from "./notices.ts";
import { createSessionLibrary } from "../library/session-library.ts";
import { buildSystemPrompt, findInstructions, subagentEnvironment } from "./system-prompt.ts";
import { findCustomAgents } from "./subagents/agent-files.ts";
import type { TaskSetup } from "./subagents/setup.ts";
import type { SecretPlaces } from "../file-safety/credential-paths.ts";
import type { AgentHandle, AgentService, BackgroundCommand, SessionOpenOptions } from "./types.ts";

export interface AgentServiceDeps extends AgentCollaborators {
  readonly store: SessionStore;
  /** Model requests allowed in one turn before it ends `max_turn_requests`. */
  readonly maxRequestsPerTurn: number;
  /** The user's config dir, searched for an AGENTS.md. */
  readonly configDir?: string;
  /** What instruction files must not be: credential stores, dsh's state directory. */
  readonly secrets: SecretPlaces;
  readonly platform: string;
  readonly now: () => Date;
  /** Starts a session's MCP servers (the config file's and its own); undefined for none. */
  readonly sessionTools: (request: SessionToolsRequest) => McpServers | undefined;
  /** The user's home, searched for `~/.agents/skills`. */
  readonly home: string;
  /** The names the built-in slash commands hold: no skill or custom command takes one. */
  readonly reservedCommands: readonly string[];
  /** `max_subagents`: a session's subagents that run at once; 4 when absent. */
  readonly maxSubagents?: number;
  /** A session's background commands, for its status. */
  readonly background?: (sessionId: string) => readonly BackgroundCommand[];
  /** What else ends with a session (its background commands); awaited by its dispose. */
  readonly sessionClosed?: (sessionId: string) => Promise<void>;
}

/** What a session opening asks of `sessionTools`. */
export interface SessionToolsRequest {
  /** The session root: stdio servers run in it. */
  readonly cwd: string;
  /** The session's own servers (the editor's `mcpServers`). */
  readonly servers: readonly McpServerSpec[];
  /** Tells the user once about a server that failed or stopped. */
  readonly report: (notice: McpNotice) => void;
  /** Called whenever the prompts the servers offer may have changed. */
  readonly onPromptsChanged: () => void;
}

/** Time the instruction files may take to read when a session opens (a hung network mount). */
const INSTRUCTIONS_TIMEOUT_MS = 10_000;

export function createAgentService(deps: AgentServiceDeps): AgentService {
  /** Ids of sessions live (or being opened) in this process: one writer per session. */
  const live = new Set<string>();

  async function open(
    log: SessionLog,
    root: string,
    options: SessionOpenOptions,
  ): Promise<AgentHandle> {
    const notices = createNoticeBox();
    const instructions = await findInstructions({
      cwd: root,
      configDir: deps.configDir,
      secrets: deps.secrets,
      logger: deps.logger,
      report: notices.post,
      signal: AbortSignal.timeout(INSTRUCTIONS_TIMEOUT_MS),
    });
    let mcp: McpServers | undefined;
    // Skills and custom commands are found in the background: opening never waits for them.
    const library = createSessionLibrary({
      root,
      extraRoots: [],
      configDir: deps.configDir,
      home: deps.home,
      secrets: deps.secrets,
      logger: deps.logger,
      reserved: deps.reservedCommands,
      mcp: () => mcp,
      warn: (notice) => notices.post({ severity: "warning", ...notice }),
    });
    const date = deps.now().toISOString().slice(0, 10);
    // Made once, from the first scan of the skills: the same bytes for every request.
    const systemPrompt = library.skillsBlock().then((skills) =>
      buildSystemPrompt({
        cwd: root,
        platform: deps.platform,
        date,
        instructions,
        skills,
        web: {
          fetch: deps.tools.names.includes("web_fetch"),
          search: deps.tools.names.includes("web_search"),
        },
      }),
    );
    const tasks: TaskSetup = {
      agents: findCustomAgents({
        root,
        configDir: deps.configDir,
        secrets: deps.secrets,
        warn: (notice) => notices.post({ severity: "warning", ...notice }),
        signal: AbortSignal.timeout(INSTRUCTIONS_TIMEOUT_MS),
      }),
      environment: subagentEnvironment({
        cwd: root,
        platform: deps.platform,
        date,
        instructions,
      }),
      maxConcurrent: deps.maxSubagents ?? 4,
    };
    mcp = deps.sessionTools({
      cwd: root,
      servers: options.mcpServers ?? [],
      report: notices.post,
      onPromptsChanged: library.promptsChanged,
    });
    return createAgentHandle({
      ...deps,
      tools: deps.tools,
      mcp,
      notices,
      log,
      root,
      maxRequests: deps.maxRequestsPerTurn,
      systemPrompt,
      library,
      tasks,
      onDispose: async () => {
        library.close();
        live.delete(log.header.id);
        await deps.sessionClosed?.(log.header.id);
      },
    });
  }

  return {
    async create({ cwd, ...options }) {
      const root = await sessionRoot(cwd);
      const log = await deps.store.create({ cwd });
      live.add(log.header.id);
      try {
        return await open(log, root, options);
      } catch (error) {
        live.delete(log.header.id);
        await log[Symbol.asyncDispose]();
        throw error;
      }
    },

    async resume(id, { cwd, ...options } = {}) {
      if (live.has(id)) throw new ConflictError(`session ${id} is already open`, { sessionId: id });
      live.add(id);
      let log: SessionLog | undefined;
      try {
        log = await deps.store.open(id);
        if (cwd !== undefined) await checkSameCwd(id, log.header.cwd, cwd);
        return await open(log, await sessionRoot(log.header.cwd), options);
      } catch (error) {
        live.delete(id);
        await log?.[Symbol.asyncDispose]();
        throw error;
      }
    },

    list: () => deps.store.list(),

    async delete(id) {
      if (live.has(id)) throw new ConflictError(`session ${id} is open`, { sessionId: id });
      await deps.store.delete(id);
    },
  };
}

/** Checks `cwd` (absolute, an existing directory, no kernel file system) and returns its realpath. */
async function sessionRoot(cwd: string): Promise<string> {
  await checkCwd(cwd);
  return realpath(cwd);
}
