/**
 * The agent service: creates and resumes live sessions. Surfaces reach the loop only through
 * the handles it returns. Each session gets its own tool registry: the core tools plus the
 * tools of its MCP servers, which start in the background as the session opens; and its own
 * library of skills, custom commands and MCP prompts, found in the background too.
 */
import { checkSameCwd } from "../session/cwd.ts";
import { ConflictError, errorMessage } from "../errors.ts";
import { checkAddedDirectory, loggedDirectories } from "../session/directories.ts";
import { type NewSession, checkedDirectories, makeNewSession, sessionRoot } from "./new-session.ts";
import type { McpNotice, McpServerSpec, McpServers } from "../mcp/types.ts";
import type { NewSessionEvent } from "../session/events.ts";
import type { SessionLog, SessionStore } from "../session/types.ts";
import { type AgentCollaborators, createAgentHandle } from "./handle.ts";
import { type Notice, type NoticeBox, createNoticeBox } from "./notices.ts";
import type { CheckpointSettings } from "../checkpoints/config.ts";
import { openSessionCheckpoints, removeCheckpoints } from "../checkpoints/session-checkpoints.ts";
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
  /** Where and how sessions keep checkpoints of their workspace; none are kept when absent. */
  readonly checkpoints?: CheckpointPlace;
}

/** Where checkpoints are kept (dsh's state directory), and their settings. */
export interface CheckpointPlace {
  readonly stateDir: string;
  readonly settings: CheckpointSettings;
  /** The PATH git is looked for in. */
  readonly path: string | undefined;
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
    given: readonly string[],
  ): Promise<AgentHandle> {
    const notices = createNoticeBox();
    const directories = await sessionDirectories(log, root, given, notices.post);
    const instructions = await instructionsOf(deps, [root, ...directories], notices.post);
    let mcp: McpServers | undefined;
    // Skills and custom commands are found in the background: opening never waits for them.
    const library = createSessionLibrary({
      root,
      extraRoots: directories,
      configDir: deps.configDir,
      home: deps.home,
      secrets: deps.secrets,
      logger: deps.logger,
      reserved: deps.reservedCommands,
      mcp: () => mcp,
      warn: (notice) => notices.post({ severity: "warning", ...notice }),
    });
    const date = deps.now().toISOString().slice(0, 10);
    const prompts = promptsOf(deps, { root, date, library, notices, instructions });
    const tasks = taskSetupOf(deps, { root, directories, date, instructions }, notices.post);
    mcp = deps.sessionTools({
      cwd: root,
      servers: options.mcpServers ?? [],
      report: notices.post,
      onPromptsChanged: library.promptsChanged,
    });
    const checkpoints = sessionCheckpoints(deps, log, [root, ...directories]);
    return createAgentHandle({
      ...deps,
      checkpoints,
      directories,
      tools: deps.tools,
      mcp,
      notices,
      log,
      root,
      maxRequests: deps.maxRequestsPerTurn,
      // Made once, from the first scan of the skills: the same bytes for every request until a
      // directory is added.
      systemPrompt: prompts.first(directories),
      systemPromptAdding: prompts.adding,
      library,
      tasks,
      onDispose: async () => {
        library.close();
        checkpoints?.close();
        live.delete(log.header.id);
        await deps.sessionClosed?.(log.header.id);
      },
    });
  }

  async function adopt(made: NewSession, options: SessionOpenOptions): Promise<AgentHandle> {
    const { log, root, given } = made;
    live.add(log.header.id);
    try {
      return await open(log, root, options, given);
    } catch (error) {
      live.delete(log.header.id);
      await log[Symbol.asyncDispose]();
      throw error;
    }
  }

  return {
    async create({ cwd, ...options }) {
      return adopt(await makeNewSession(deps.store, { cwd, ...options }), options);
    },

    async start({ cwd, ...options }) {
      const made = await makeNewSession(deps.store, { cwd, ...options });
      return {
        sessionId: made.log.header.id,
        settings: deps.defaults,
        handle: adopt(made, options),
      };
    },

    adopt,

    async fork({ cwd, history, ...options }) {
      const root = await sessionRoot(cwd);
      const given = await checkedDirectories(options.additionalDirectories ?? []);
      const log = await deps.store.create({ cwd });
      live.add(log.header.id);
      try {
        for (const event of history) {
          const { seq: _seq, at: _at, ...copy } = event;
          log.append(copy as NewSessionEvent);
        }
        await log.flush();
        return await open(log, root, options, given);
      } catch (error) {
        live.delete(log.header.id);
        await log[Symbol.asyncDispose]();
        throw error;
      }
    },

    async resume(id, { cwd, ...options } = {}) {
      if (live.has(id)) throw new ConflictError(`session ${id} is already open`, { sessionId: id });
      const given = await checkedDirectories(options.additionalDirectories ?? []);
      live.add(id);
      let log: SessionLog | undefined;
      try {
        log = await deps.store.open(id);
        if (cwd !== undefined) await checkSameCwd(id, log.header.cwd, cwd);
        return await open(log, await sessionRoot(log.header.cwd), options, given);
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
      if (deps.checkpoints !== undefined) removeCheckpoints(deps.checkpoints.stateDir, id);
    },
  };
}

/** The session's system prompt as it opens, and as a directory added to it makes it. */
function promptsOf(
  deps: AgentServiceDeps,
  session: {
    readonly root: string;
    readonly date: string;
    readonly library: ReturnType<typeof createSessionLibrary>;
    readonly notices: NoticeBox;
    readonly instructions: readonly { path: string; text: string }[];
  },
) {
  const { root, date, library, notices } = session;
  let instructions = session.instructions;
  const promptOf = (directories: readonly string[]) =>
    library.skillsBlock().then((skills) =>
      buildSystemPrompt({
        cwd: root,
        platform: deps.platform,
        date,
        instructions,
        skills,
        directories,
        web: {
          fetch: deps.tools.names.includes("web_fetch"),
          search: deps.tools.names.includes("web_search"),
        },
      }),
    );
  return {
    first: promptOf,
    async adding(dir: string, all: readonly string[]) {
      library.addRoot(dir);
      instructions = await instructionsOf(deps, [dir], notices.post, instructions);
      const subagents = subagentEnvironment({
        cwd: root,
        directories: all,
        platform: deps.platform,
        date,
        instructions,
      });
      return { system: await promptOf(all), subagents };
    },
  };
}

/**
 * The AGENTS.md files of the session: the config directory's and the session root's
 * repository's, then each added directory's, as a project of its own (each file once).
 * With `known`, the files of a session already open, `roots` are directories added to it:
 * their files follow, as the session opened with them would have them.
 */
async function instructionsOf(
  deps: AgentServiceDeps,
  roots: readonly string[],
  report: (notice: Notice) => void,
  known?: readonly { path: string; text: string }[],
): Promise<{ path: string; text: string }[]> {
  const signal = AbortSignal.timeout(INSTRUCTIONS_TIMEOUT_MS);
  const found: { path: string; text: string }[] = [...(known ?? [])];
  for (const [i, cwd] of roots.entries()) {
    const files = await findInstructions({
      cwd,
      configDir: i === 0 && known === undefined ? deps.configDir : undefined,
      secrets: deps.secrets,
      logger: deps.logger,
      report,
      signal,
    });
    for (const file of files) {
      if (!found.some((known) => known.path === file.path)) found.push(file);
    }
  }
  return found;
}

/** What the session's `task` tool needs: its custom agents (found in the background), and more. */
function taskSetupOf(
  deps: AgentServiceDeps,
  session: {
    readonly root: string;
    readonly directories: readonly string[];
    readonly date: string;
    readonly instructions: readonly { path: string; text: string }[];
  },
  report: (notice: Notice) => void,
): TaskSetup {
  const { root, directories, date, instructions } = session;
  return {
    agents: findCustomAgents({
      root,
      configDir: deps.configDir,
      secrets: deps.secrets,
      warn: (notice) => report({ severity: "warning", ...notice }),
      signal: AbortSignal.timeout(INSTRUCTIONS_TIMEOUT_MS),
    }),
    environment: subagentEnvironment({
      cwd: root,
      directories,
      platform: deps.platform,
      date,
      instructions,
    }),
    maxConcurrent: deps.maxSubagents ?? 4,
  };
}

/** The session's checkpoints of `roots`, when the service keeps any. */
function sessionCheckpoints(deps: AgentServiceDeps, log: SessionLog, roots: readonly string[]) {
  const place = deps.checkpoints;
  if (place === undefined) return undefined;
  return openSessionCheckpoints({
    home: place.stateDir,
    sessionId: log.header.id,
    roots,
    settings: place.settings,
    path: place.path,
    userHome: deps.home,
    logger: deps.logger,
  });
}

/**
 * The directories a session works in besides its root: those its log names (one gone since is
 * left out, and the user told) and those given now, which are logged.
 */
async function sessionDirectories(
  log: SessionLog,
  root: string,
  given: readonly string[],
  report: (notice: Notice) => void,
): Promise<string[]> {
  const directories: string[] = [];
  for (const logged of loggedDirectories(log.events)) {
    try {
      directories.push(await checkAddedDirectory(logged));
    } catch (error) {
      report({
        severity: "warning",
        title: `the added directory ${logged} is left out`,
        description: errorMessage(error),
      });
    }
  }
  for (const dir of given) {
    if (dir === root || directories.includes(dir)) continue;
    log.append({ type: "directory", path: dir });
    directories.push(dir);
  }
  return directories.filter((dir) => dir !== root);
}
