/**
 * A live session: owns its log writer, runs one turn at a time (`turn-envelope.ts`) of the two
 * kinds a session has (`session-turns.ts`), fans live events out, and holds config changes made
 * while idle until the next prompt anchors them in the log (`settings-overlay.ts`).
 */
import type { ApprovalSeam } from "../approval/types.ts";
import type { SessionCheckpoints } from "../checkpoints/session-checkpoints.ts";
import { ConflictError, InvalidInputError } from "../errors.ts";
import { visiblePromptTurns } from "../session/rewind.ts";
import { checkAddedDirectory } from "../session/directories.ts";
import type { Logger } from "../log.ts";
import type { ModelClient, ModelInfo } from "../llm/types.ts";
import { contextUsed, foldCost } from "../session/context.ts";
import type { SessionLog } from "../session/types.ts";
import type { SessionLibrary } from "../library/types.ts";
import type { McpServers } from "../mcp/types.ts";
import type { AnyTool, ToolRegistry } from "../tools/types.ts";
import type { SecretPlaces } from "../file-safety/credential-paths.ts";
import { imageNoticeFor } from "./content-check.ts";
import { createEventHub } from "./event-hub.ts";
import type { NoticeBox } from "./notices.ts";
import { type AddedPrompts, type SessionPrompts, createSessionPrompts } from "./session-prompts.ts";
import { type SessionTurnParts, compactTurn, promptTurn } from "./session-turns.ts";
import { createSettingsOverlay } from "./settings-overlay.ts";
import { createTurnEnvelope } from "./turn-envelope.ts";
import { createSessionRegistry } from "../tools/session-registry.ts";
import { createToolRegistry } from "../tools/registry.ts";
import type { CustomAgent } from "./subagents/agent-files.ts";
import type { TaskSetup } from "./subagents/setup.ts";
import { createTaskTool } from "./subagents/task-tool.ts";
import {
  type AgentHandle,
  type BackgroundCommand,
  type LiveEvent,
  type SessionSettings,
  type SessionStatus,
  type UserContent,
  liveEventOf,
} from "./types.ts";

export interface ModelCatalogView {
  models(): readonly ModelInfo[];
  get(id: string): ModelInfo;
}

/** What every session of a service shares: the model, the tools and the seams. */
export interface AgentCollaborators {
  readonly client: ModelClient;
  readonly catalog: ModelCatalogView;
  readonly tools: ToolRegistry;
  readonly approval: ApprovalSeam;
  /** Settings of a session that has not changed them. */
  readonly defaults: SessionSettings;
  readonly logger: Logger;
  /** The share of a model's window a request may fill before compaction; 0.8 when absent. */
  readonly compactAt?: number;
  /** The clock that prices requests (DeepSeek's peak hours); the real one when absent. */
  readonly now?: () => Date;
}

export interface AgentHandleDeps extends AgentCollaborators {
  /**
   * The session's own MCP servers, stopped with it; none when it has no servers. Their tools
   * follow the core tools (and `task`) in the session's list.
   */
  readonly mcp?: McpServers;
  /** Where the session's parts raise notices for the user. */
  readonly notices: NoticeBox;
  readonly log: SessionLog;
  /** The session root, realpath'd. */
  readonly root: string;
  readonly maxRequests: number;
  /** Made once per session, before its first model request; the same bytes after. */
  readonly systemPrompt: Promise<string>;
  /**
   * The system prompt (and the subagents' environment lines) once `dir` is added, `all` being
   * every added directory then: its instructions and skills read, as a session opened with
   * them would have them.
   */
  readonly systemPromptAdding?: (dir: string, all: readonly string[]) => Promise<AddedPrompts>;
  /** The session's skills, custom commands and MCP prompts. */
  readonly library: SessionLibrary;
  /** What is never read into a prompt from a link: credential stores, dsh's state. */
  readonly secrets: SecretPlaces;
  readonly onDispose: () => void | Promise<void>;
  /** What the session's `task` tool needs; without it no `task` is offered. */
  readonly tasks?: TaskSetup;
  /** The session's background commands; none when absent. */
  readonly background?: (sessionId: string) => readonly BackgroundCommand[];
  /** The session's checkpoints; none are kept when absent. */
  readonly checkpoints?: SessionCheckpoints;
  /** The directories it works in besides its root (realpaths), as opened. */
  readonly directories?: readonly string[];
}

export function createAgentHandle(deps: AgentHandleDeps): AgentHandle {
  const { log } = deps;
  const hub = createEventHub<LiveEvent>();
  const publish = (event: LiveEvent) => hub.publish(event);
  const settings = createSettingsOverlay({
    log,
    defaults: deps.defaults,
    catalog: deps.catalog,
    logger: deps.logger,
  });
  const turns = createTurnEnvelope({
    log,
    logger: deps.logger,
    publish,
    ended: () => deps.notices.release(),
  });
  let disposing: Promise<void> | undefined;
  // Made once the task tool is ready (it is by the first request).
  const prompts = createSessionPrompts(deps, () => tasksReady);
  const { tools, ready: tasksReady } = sessionToolsOf(deps, (withoutTask, agents) =>
    createTaskTool({
      ...parts,
      tools: withoutTask,
      model: (id) => deps.catalog.get(id),
      settings: settings.current,
      agents,
      environment: prompts.environment,
      maxConcurrent: deps.tasks?.maxConcurrent ?? 1,
    }),
  );
  /** Models the user was already told cannot see images: told once per model and session. */
  const toldBlind = new Set<string>();

  const directories = [...(deps.directories ?? [])];
  const parts: SessionTurnParts = {
    log,
    // The session's own: its requests never take the place of another session's.
    client: deps.client.conversation(),
    // One message object for all the session's requests, once its prompt is made; another
    // only once a directory is added.
    system: prompts.system,
    catalog: deps.catalog,
    tools,
    // Read at every request: a change to an MCP server's tool list reaches the next request.
    definitions: () => tools.definitions({ sessionId: log.header.id }),
    settings,
    approval: deps.approval,
    mcp: deps.mcp,
    notices: deps.notices,
    logger: deps.logger,
    root: deps.root,
    directories: () => directories,
    secrets: deps.secrets,
    maxRequests: deps.maxRequests,
    compactAt: deps.compactAt ?? DEFAULT_COMPACT_AT,
    now: deps.now ?? (() => new Date()),
    // Built once for the log and for subscribers (`liveEventOf`).
    record: (event) => {
      const live = liveEventOf(log.append(event));
      if (live !== undefined) publish(live);
    },
    publish,
    ...(deps.checkpoints === undefined ? {} : { checkpoints: deps.checkpoints }),
  };

  return {
    sessionId: log.header.id,
    cwd: log.header.cwd,

    async prompt(content, signal) {
      if (!disposing && !turns.running()) {
        if (!hasContent(content)) throw new InvalidInputError("the prompt is empty");
        tellBlindOnce(deps, toldBlind, settings.current().model, content);
      }
      return turns.run(signal, (turnId, turnSignal) =>
        promptTurn(parts, turnId, turnSignal, content),
      );
    },

    compact({ focus, signal }) {
      return turns.run(signal, (turnId, turnSignal) =>
        compactTurn(parts, turnId, turnSignal, focus),
      );
    },

    status(): SessionStatus {
      const background = deps.background?.(log.header.id) ?? [];
      return {
        contextUsed: contextUsed(log.events),
        contextWindow: deps.catalog.get(settings.current().model).contextWindow,
        costUsd: foldCost(log.events),
        ...(background.length === 0 ? {} : { background }),
      };
    },

    events: () => hub.subscribe(),

    async idle() {
      await turns.idle();
      await log.flush();
    },

    history: () => log.events,

    settings: settings.current,

    configure: (change) => settings.change(change, turns.running()),

    mcpServers: () => deps.mcp?.statuses() ?? [],

    library: deps.library,

    ...(deps.checkpoints === undefined ? {} : { checkpoints: deps.checkpoints }),

    directories: () => directories,

    addDirectory: (path) => addDirectory(deps, directories, turns.running(), path, prompts),

    rewind(turnId) {
      refuseWhileRunning(turns.running(), log.header.id);
      rewindTo(log, turnId);
    },

    [Symbol.asyncDispose]() {
      disposing ??= (async () => {
        await turns.close();
        await deps.mcp?.[Symbol.asyncDispose]();
        hub.close();
        await log[Symbol.asyncDispose]();
        await deps.onDispose();
      })();
      return disposing;
    },
  };
}

const DEFAULT_COMPACT_AT = 0.8;
const NO_TOOLS = createToolRegistry([]);

/**
 * The session's tools: the core tools, then `task` (once its custom agents are known, before
 * the first request), then the MCP servers' tools, so that servers that come and go leave the
 * rest of the list, and so the requests' cached prefix, as it was. `taskTool` is given the
 * tools a subagent may have (all but `task`).
 */
function sessionToolsOf(
  deps: AgentHandleDeps,
  taskTool: (withoutTask: ToolRegistry, agents: readonly CustomAgent[]) => AnyTool,
): { readonly tools: ToolRegistry; readonly ready: Promise<void> | undefined } {
  let taskTools: ToolRegistry | undefined;
  const { mcp } = deps;
  const mcpTools = mcp === undefined ? undefined : () => mcp.registry();
  const withMcp = (base: ToolRegistry) =>
    mcpTools === undefined ? base : createSessionRegistry(base, mcpTools);
  const withoutTask = withMcp(deps.tools);
  if (deps.tasks === undefined) return { tools: withoutTask, ready: undefined };
  const tools = withMcp(createSessionRegistry(deps.tools, () => taskTools ?? NO_TOOLS));
  // Finding custom agents never fails a session: without them `task` still has its built-ins.
  const ready = deps.tasks.agents
    .catch((): readonly CustomAgent[] => [])
    .then((agents) => {
      taskTools = createToolRegistry([taskTool(withoutTask, agents)]);
    });
  return { tools, ready };
}

/** Tells the user, once per model, that the images of a prompt go unseen by this model. */
function tellBlindOnce(
  deps: AgentHandleDeps,
  told: Set<string>,
  modelId: string,
  content: readonly UserContent[],
): void {
  const model = deps.catalog.get(modelId);
  const notice = imageNoticeFor(content, model, deps.catalog.models());
  if (notice === undefined || told.has(model.id)) return;
  told.add(model.id);
  deps.notices.post(notice);
}

function refuseWhileRunning(running: boolean, sessionId: string): void {
  if (running) throw new ConflictError(`a turn is running in session ${sessionId}`, { sessionId });
}

/** Logs a rewind to before prompt turn `turnId`, which the conversation still shows. */
function rewindTo(log: SessionLog, turnId: string): void {
  const turn = visiblePromptTurns(log.events).find((t) => t.turnId === turnId);
  const fromSeq = turn?.events[0]?.seq;
  if (fromSeq === undefined) throw new InvalidInputError(`no turn ${turnId} to rewind to`);
  log.append({ type: "rewind", toTurnId: turnId, fromSeq });
}

/**
 * Adds a directory to the session (logged, checkpointed, in the next request's system prompt);
 * resolves with its realpath.
 */
async function addDirectory(
  deps: AgentHandleDeps,
  directories: string[],
  running: boolean,
  path: string,
  prompts: SessionPrompts,
): Promise<string> {
  const real = await checkAddedDirectory(path);
  refuseWhileRunning(running, deps.log.header.id);
  if (real === deps.root || directories.includes(real)) return real;
  deps.log.append({ type: "directory", path: real });
  await deps.log.flush();
  directories.push(real);
  deps.checkpoints?.addRoot(real);
  prompts.added(real, directories);
  return real;
}

function hasContent(content: readonly UserContent[]): boolean {
  return content.some((block) => block.type !== "text" || block.text.trim() !== "");
}
