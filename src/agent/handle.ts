/**
 * A live session: owns its log writer, runs one turn at a time, fans live events out, and
 * holds config changes made while idle until the next prompt anchors them in the log.
 */
import type { ApprovalSeam } from "../approval/types.ts";
import { ConflictError, InvalidInputError, errorMessage } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { ModelClient, ModelInfo } from "../llm/types.ts";
import type { NewSessionEvent, SessionEvent } from "../session/events.ts";
import { contextUsed, foldCost } from "../session/context.ts";
import { type SettingsEventType, foldSettings, hasLoggedSetting } from "../session/folds.ts";
import type { SessionLog } from "../session/types.ts";
import type { SessionLibrary } from "../library/types.ts";
import type { McpServers } from "../mcp/servers.ts";
import type { ToolRegistry } from "../tools/types.ts";
import type { SecretPlaces } from "../tools/file-safety/credential-paths.ts";
import { embeddedSecret, readMentionedFile } from "../tools/file-safety/mentioned-file.ts";
import type { SecretRefusal } from "../tools/file-safety/mentioned-file.ts";
import { createToolContext } from "../tools/tool-context.ts";
import { compactContext } from "./compaction.ts";
import { checkContentForModel } from "./content-check.ts";
import { createEventHub } from "./event-hub.ts";
import { embedMentionedFiles } from "./mentions.ts";
import type { NoticeBox } from "./notices.ts";
import { runTurnLoop } from "./turn.ts";
import type {
  AgentHandle,
  LiveEvent,
  SessionSettings,
  SessionStatus,
  TurnOutcome,
  UserContent,
} from "./types.ts";
import { validateSettingsChange } from "./settings.ts";

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
  /** Made once per session, before its first model request; the same bytes after. */
  readonly systemPrompt: Promise<string>;
  /** The session's skills, custom commands and MCP prompts. */
  readonly library: SessionLibrary;
  /** What is never read into a prompt from a link: credential stores, dsh's state. */
  readonly secrets: SecretPlaces;
  readonly onDispose: () => void;
}

export function createAgentHandle(deps: AgentHandleDeps): AgentHandle {
  const { log } = deps;
  const hub = createEventHub<LiveEvent>();
  /** The running turn's end, while one runs. */
  let running: Promise<TurnOutcome> | undefined;
  // The handle's own lifetime, not a turn's: disposing the handle stops the turn it runs,
  // whoever holds that turn's signal.
  const closing = new AbortController();
  let pending: Partial<SessionSettings> = {};
  let disposing: Promise<void> | undefined;
  // The end of a turn the log could not take (a full disk): written before the next turn starts.
  let unrecordedEnd: NewSessionEvent | undefined;

  const durable = (): SessionSettings => foldSettings(log.events, deps.defaults);
  const settings = (): SessionSettings => ({ ...durable(), ...pending });

  const publish = (event: LiveEvent) => hub.publish(event);
  const now = deps.now ?? (() => new Date());
  const compactAt = deps.compactAt ?? DEFAULT_COMPACT_AT;
  const definitions = () => deps.tools.definitions({ sessionId: log.header.id });

  /**
   * Runs `body` as a turn: marked running before it starts, logged from start to end, its end
   * published after the mark is cleared. Rejects only with ConflictError (closed or busy).
   */
  async function launch(
    signal: AbortSignal,
    body: (turnId: string, signal: AbortSignal) => Promise<TurnOutcome>,
  ): Promise<TurnOutcome> {
    if (disposing) throw new ConflictError("the session is closed", { sessionId: log.header.id });
    if (running)
      throw new ConflictError("a prompt is already running in this session", {
        sessionId: log.header.id,
      });
    // Marked running before the turn starts: a turn that fails before its first await
    // (a broken log) must still find itself marked, so its end can clear the mark.
    const finished = Promise.withResolvers<TurnOutcome>();
    running = finished.promise;
    runTurn(AbortSignal.any([signal, closing.signal]), body).then(
      finished.resolve,
      finished.reject,
    );
    return await finished.promise;
  }

  async function runTurn(
    signal: AbortSignal,
    body: (turnId: string, signal: AbortSignal) => Promise<TurnOutcome>,
  ): Promise<TurnOutcome> {
    const turnId = crypto.randomUUID();
    let outcome: TurnOutcome;
    try {
      if (unrecordedEnd !== undefined) {
        log.append(unrecordedEnd);
        unrecordedEnd = undefined;
      }
      outcome = await body(turnId, signal);
    } catch (error) {
      deps.logger.error("turn failed", { sessionId: log.header.id, error });
      outcome = {
        turnId,
        reason: "error",
        error: { code: "internal", message: errorMessage(error) },
      };
    }
    try {
      log.append({
        type: "turn_end",
        turnId,
        reason: outcome.reason,
        ...(outcome.error ? { error: outcome.error } : {}),
      });
      await log.flush();
    } catch (error) {
      // A turn is answered as it ended only once that is on disk; otherwise its answer is this.
      deps.logger.error("could not record the end of a turn", { sessionId: log.header.id, error });
      outcome = {
        turnId,
        reason: "error",
        error: { code: "log_write", message: errorMessage(error) },
      };
      if (isOpenTurn(log.events, turnId))
        unrecordedEnd = { type: "turn_end", turnId, reason: "error", error: outcome.error };
    }
    deps.notices.release();
    // Cleared before subscribers hear of the end, so a follow-up prompt they send is accepted.
    running = undefined;
    publish({ type: "turn_end", ...outcome });
    return outcome;
  }

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
        client: deps.client,
        systemPrompt: await deps.systemPrompt,
        definitions: definitions(),
        model: deps.catalog.get(settings().model),
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
    for (const event of settingsEvents(durable(), pending, unrecordedSettings(log.events)))
      log.append(event);
    pending = {};
    publish({ type: "turn_start", turnId, content });
    // Servers still starting get their bounded start-up time before the first request.
    await deps.mcp?.started(signal);
    deps.notices.listen((notice) => publish({ type: "notice", turnId, ...notice }));
    return await runTurnLoop(
      {
        log,
        client: deps.client,
        tools: deps.tools,
        // A getter: the loop reads it at every request, so a change to an MCP server's tool
        // list reaches the next request of the same turn.
        get definitions() {
          return definitions();
        },
        systemPrompt: await deps.systemPrompt,
        cwd: deps.root,
        maxRequests: deps.maxRequests,
        settings,
        model: (id) => deps.catalog.get(id),
        toolContext: (toolCallId, signal, progress) =>
          createToolContext(
            {
              signal,
              sessionId: log.header.id,
              toolCallId,
              cwd: deps.root,
              knobs: settings().knobs,
              progress,
            },
            deps.approval,
          ),
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
      if (!disposing && !running) {
        if (!hasContent(content)) throw new InvalidInputError("the prompt is empty");
        checkContentForModel(content, deps.catalog.get(settings().model), deps.catalog.models());
      }
      return launch(signal, (turnId, turnSignal) => promptTurn(turnId, turnSignal, content));
    },

    compact({ focus, signal }) {
      return launch(signal, (turnId, turnSignal) => compactTurn(turnId, turnSignal, focus));
    },

    status(): SessionStatus {
      return {
        contextUsed: contextUsed(log.events),
        contextWindow: deps.catalog.get(settings().model).contextWindow,
        costUsd: foldCost(log.events),
      };
    },

    events: () => hub.subscribe(),

    async idle() {
      if (running) await running;
      await log.flush();
    },

    history: () => log.events,

    settings,

    configure(change) {
      const valid = validateSettingsChange(change, deps.catalog);
      if (running) {
        const events = settingsEvents(settings(), valid);
        for (const event of events) log.append(event);
        pending = {};
        // Durable at once: a crash later in the turn keeps the change.
        if (events.length > 0) {
          log.flush().catch((error: unknown) => {
            deps.logger.error("could not flush a settings change", {
              sessionId: log.header.id,
              error,
            });
          });
        }
      } else {
        pending = { ...pending, ...valid };
      }
      return settings();
    },

    mcpServers: () => deps.mcp?.statuses() ?? [],

    library: deps.library,

    [Symbol.asyncDispose]() {
      disposing ??= (async () => {
        closing.abort();
        await running?.catch(() => undefined);
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

const SETTINGS_EVENT_TYPES: readonly SettingsEventType[] = [
  "model",
  "effort",
  "sandbox_mode",
  "approval_policy",
];

/** Whether `turnId` is the log's latest turn and its end is not logged. */
function isOpenTurn(events: readonly SessionEvent[], turnId: string): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.type === "turn_end") return false;
    if (event?.type === "turn_start") return event.turnId === turnId;
  }
  return false;
}

function hasContent(content: readonly UserContent[]): boolean {
  return content.some((block) => block.type !== "text" || block.text.trim() !== "");
}

/**
 * The settings types a log has never recorded. A session's first turn records them all, so a
 * resumed session keeps its own settings whatever the defaults of the process reopening it.
 */
function unrecordedSettings(events: readonly SessionEvent[]): ReadonlySet<SettingsEventType> {
  return new Set(SETTINGS_EVENT_TYPES.filter((type) => !hasLoggedSetting(events, type)));
}

/**
 * The log events that move `from` to `from` overlaid with `change`: one per changed setting,
 * and one for each type in `record` even when unchanged.
 */
function settingsEvents(
  from: SessionSettings,
  change: Partial<SessionSettings>,
  record: ReadonlySet<SettingsEventType> = new Set(),
): NewSessionEvent[] {
  const to: SessionSettings = { ...from, ...change };
  const events: NewSessionEvent[] = [];
  if (record.has("model") || to.model !== from.model)
    events.push({ type: "model", model: to.model });
  if (record.has("effort") || to.effort !== from.effort)
    events.push({ type: "effort", effort: to.effort });
  if (record.has("sandbox_mode") || to.knobs.sandboxMode !== from.knobs.sandboxMode) {
    events.push({ type: "sandbox_mode", mode: to.knobs.sandboxMode });
  }
  if (record.has("approval_policy") || to.knobs.approvalPolicy !== from.knobs.approvalPolicy) {
    events.push({ type: "approval_policy", policy: to.knobs.approvalPolicy });
  }
  return events;
}
