/**
 * A live session: owns its log writer, runs one turn at a time (`turn-envelope.ts`), fans live
 * events out, and holds config changes made while idle until the next prompt anchors them in
 * the log (`settings-overlay.ts`).
 */
import type { ApprovalSeam } from "../approval/types.ts";
import { InvalidInputError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { ModelClient, ModelInfo } from "../llm/types.ts";
import { contextUsed, foldCost } from "../session/context.ts";
import type { NewSessionEvent } from "../session/events.ts";
import type { SessionLog } from "../session/types.ts";
import type { McpServers } from "../mcp/servers.ts";
import type { ToolRegistry } from "../tools/types.ts";
import type { SecretPlaces } from "../tools/file-safety/credential-paths.ts";
import { embeddedSecret, readMentionedFile } from "../tools/file-safety/mentioned-file.ts";
import type { SecretRefusal } from "../tools/file-safety/mentioned-file.ts";
import { createToolContext } from "../tools/tool-context.ts";
import { type CompactionResult, compactContext } from "./compaction.ts";
import { checkContentForModel } from "./content-check.ts";
import { createEventHub } from "./event-hub.ts";
import { embedMentionedFiles } from "./mentions.ts";
import type { NoticeBox } from "./notices.ts";
import { createSettingsOverlay } from "./settings-overlay.ts";
import { runTurnLoop } from "./turn.ts";
import { createTurnEnvelope } from "./turn-envelope.ts";
import {
  type AgentHandle,
  type LiveEvent,
  type SessionSettings,
  type SessionStatus,
  type TurnOutcome,
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
  /** The session's own MCP servers, stopped with it; none when it has no servers. */
  readonly mcp?: McpServers;
  /** Where the session's parts raise notices for the user. */
  readonly notices: NoticeBox;
  readonly log: SessionLog;
  /** The session root, realpath'd. */
  readonly root: string;
  readonly maxRequests: number;
  readonly systemPrompt: string;
  /** What is never read into a prompt from a link: credential stores, dsh's state. */
  readonly secrets: SecretPlaces;
  readonly onDispose: () => void;
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

  // The session's own: its requests never take the place of another session's.
  const client = deps.client.conversation();
  const system = { role: "system", content: deps.systemPrompt } as const;
  const now = deps.now ?? (() => new Date());
  const compactAt = deps.compactAt ?? DEFAULT_COMPACT_AT;
  // Read at every request: a change to an MCP server's tool list reaches the next request.
  const definitions = () => deps.tools.definitions({ sessionId: log.header.id });
  /** Logs an event and publishes what it is live (`liveEventOf`), built once for both. */
  const record = (event: NewSessionEvent): void => {
    const live = liveEventOf(log.append(event));
    if (live !== undefined) publish(live);
  };

  /** A compaction on request: its own turn, with no user message. */
  async function compactTurn(
    turnId: string,
    signal: AbortSignal,
    focus: string | undefined,
  ): Promise<TurnOutcome> {
    log.append({ type: "turn_start", turnId });
    publish({ type: "turn_start", turnId, content: [] });
    const result = await compactContext(
      {
        log,
        client,
        systemPrompt: deps.systemPrompt,
        definitions: definitions(),
        model: deps.catalog.get(settings.current().model),
        publish,
        now,
      },
      {
        turnId,
        ...(focus === undefined ? {} : { focus }),
        keepTokens: 0,
        signal,
      },
    );
    return compactionOutcome(turnId, result);
  }

  async function promptTurn(
    turnId: string,
    signal: AbortSignal,
    prompt: readonly UserContent[],
  ): Promise<TurnOutcome> {
    // A named file that leads to secrets stays out; the user is told which and why.
    const leftOut = ({ path, reason }: SecretRefusal) => {
      deps.logger.warn("a file named in the prompt was left out", { path, reason });
      deps.notices.post({
        severity: "warning",
        title: `dsh left out the text of ${path}`,
        description: `${reason}; the model can read it with read_file, which you see`,
      });
    };
    const content = await embedMentionedFiles(
      prompt,
      (uri) => readMentionedFile(deps.root, uri, deps.secrets, signal, leftOut),
      (uri) => {
        const refusal = embeddedSecret(deps.root, uri);
        if (refusal !== undefined) leftOut(refusal);
        return refusal !== undefined;
      },
    );
    log.append({ type: "turn_start", turnId });
    log.append({ type: "user_message", turnId, content: [...content] });
    log.append({ type: "prompt_submit", turnId });
    settings.anchor();
    publish({ type: "turn_start", turnId, content });
    // Servers still starting get their bounded start-up time before the first request.
    await deps.mcp?.started(signal);
    deps.notices.listen((notice) => publish({ type: "notice", turnId, ...notice }));
    return await runTurnLoop(
      {
        log,
        client,
        tools: deps.tools,
        definitions,
        system,
        cwd: deps.root,
        maxRequests: deps.maxRequests,
        settings: settings.current,
        model: (id) => deps.catalog.get(id),
        toolContext: (toolCallId, signal, progress) =>
          createToolContext(
            {
              signal,
              sessionId: log.header.id,
              toolCallId,
              cwd: deps.root,
              knobs: settings.current().knobs,
              progress,
            },
            deps.approval,
          ),
        record,
        publish,
        compactAt,
        now,
      },
      turnId,
      signal,
    );
  }

  return {
    sessionId: log.header.id,
    cwd: log.header.cwd,

    async prompt(content, signal) {
      if (!disposing && !turns.running()) {
        if (!hasContent(content)) throw new InvalidInputError("the prompt is empty");
        const model = deps.catalog.get(settings.current().model);
        checkContentForModel(content, model, deps.catalog.models());
      }
      return turns.run(signal, (turnId, turnSignal) => promptTurn(turnId, turnSignal, content));
    },

    compact({ focus, signal }) {
      return turns.run(signal, (turnId, turnSignal) => compactTurn(turnId, turnSignal, focus));
    },

    status(): SessionStatus {
      return {
        contextUsed: contextUsed(log.events),
        contextWindow: deps.catalog.get(settings.current().model).contextWindow,
        costUsd: foldCost(log.events),
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

    [Symbol.asyncDispose]() {
      disposing ??= (async () => {
        await turns.close();
        await deps.mcp?.[Symbol.asyncDispose]();
        hub.close();
        await log[Symbol.asyncDispose]();
        deps.onDispose();
      })();
      return disposing;
    },
  };
}

const DEFAULT_COMPACT_AT = 0.8;

/** How a compaction on request ends its turn. */
function compactionOutcome(turnId: string, result: CompactionResult): TurnOutcome {
  switch (result.status) {
    case "completed":
      return { turnId, reason: "end_turn" };
    case "cancelled":
      return { turnId, reason: "cancelled" };
    case "failed":
      return {
        turnId,
        reason: "error",
        error: { code: "compaction_failed", message: result.error },
      };
    default: {
      const exhaustive: never = result;
      return exhaustive;
    }
  }
}

function hasContent(content: readonly UserContent[]): boolean {
  return content.some((block) => block.type !== "text" || block.text.trim() !== "");
}
