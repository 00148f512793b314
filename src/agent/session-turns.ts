/**
 * The two kinds of turn a session runs, inside its turn envelope (`turn-envelope.ts`): a prompt
 * (the files it names embedded, its start, message and anchor logged, the settings overlay
 * anchored, then the model/tool loop) and a compaction on request (a turn of its own, with no
 * user message).
 */
import type { ApprovalSeam } from "../approval/types.ts";
import type { Logger } from "../log.ts";
import type { ChatMessage, ModelClient, ModelInfo, ToolDefinition } from "../llm/types.ts";
import type { McpServers } from "../mcp/types.ts";
import type { NewSessionEvent } from "../session/events.ts";
import type { SessionLog } from "../session/types.ts";
import type { SecretPlaces } from "../file-safety/credential-paths.ts";
import { embeddedSecret, readMentionedFile } from "../file-safety/mentioned-file.ts";
import type { SecretRefusal } from "../file-safety/mentioned-file.ts";
import { createToolContext } from "../tools/tool-context.ts";
import type { ToolRegistry } from "../tools/types.ts";
import { type CompactionResult, compactContext } from "./compaction.ts";
import { embedMentionedFiles } from "./mentions.ts";
import type { SessionCheckpoints } from "../checkpoints/session-checkpoints.ts";
import type { NoticeBox } from "./notices.ts";
import type { SettingsOverlay } from "./settings-overlay.ts";
import { runTurnLoop } from "./turn.ts";
import type { LiveEvent, TurnOutcome, UserContent } from "./types.ts";

/** What a session's turns use: its log, its own model client, its settings, its seams. */
export interface SessionTurnParts {
  readonly log: SessionLog;
  /** The session's own client (`ModelClient.conversation()`). */
  readonly client: ModelClient;
  /**
   * The session's system message: one object for all its requests, made before the first,
   * and made again only when a directory is added.
   */
  readonly system: () => Promise<Extract<ChatMessage, { role: "system" }>>;
  readonly catalog: { get(id: string): ModelInfo; models(): readonly ModelInfo[] };
  readonly tools: ToolRegistry;
  /** The tool definitions offered right now. */
  readonly definitions: () => readonly ToolDefinition[];
  readonly settings: SettingsOverlay;
  readonly approval: ApprovalSeam;
  readonly mcp: McpServers | undefined;
  readonly notices: NoticeBox;
  readonly logger: Logger;
  /** The session root, realpath'd. */
  readonly root: string;
  /** The directories the session works in besides its root, now. */
  readonly directories?: () => readonly string[];
  /** What is never read into a prompt from a link. */
  readonly secrets: SecretPlaces;
  readonly maxRequests: number;
  readonly compactAt: number;
  readonly now: () => Date;
  /** Logs an event and publishes what it is live. */
  readonly record: (event: NewSessionEvent) => void;
  readonly publish: (event: LiveEvent) => void;
  /** Where the workspace is recorded before and after each prompt turn. */
  readonly checkpoints?: SessionCheckpoints;
}

/** A prompt's turn, up to the end of its model/tool loop (the envelope logs the end). */
export async function promptTurn(
  parts: SessionTurnParts,
  turnId: string,
  signal: AbortSignal,
  prompt: readonly UserContent[],
): Promise<TurnOutcome> {
  const { log, settings, publish } = parts;
  // A named file that leads to secrets stays out; the user is told which and why.
  const leftOut = ({ path, reason }: SecretRefusal) => {
    parts.logger.warn("a file named in the prompt was left out", { path, reason });
    parts.notices.post({
      severity: "warning",
      title: `dsh left out the text of ${path}`,
      description: `${reason}; the model can read it with read_file, which you see`,
    });
  };
  const content = await embedMentionedFiles(
    prompt,
    (uri) => readMentionedFile(parts.root, uri, parts.secrets, signal, leftOut),
    (uri) => {
      const refusal = embeddedSecret(parts.root, uri);
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
  await parts.mcp?.started(signal);
  parts.notices.listen((notice) => publish({ type: "notice", turnId, ...notice }));
  // Whatever the turn does to files, by file tools or by commands, can be undone: the
  // workspace is recorded before its first tool call runs (a turn without one changes nothing).
  const checkpoints = parts.checkpoints;
  let recorded: Promise<void> | undefined;
  const record = () => {
    recorded ??= checkpoints?.before(turnId) ?? Promise.resolve();
    return recorded;
  };
  try {
    const tools = checkpoints === undefined ? parts.tools : recordFirst(parts.tools, record);
    return await loop({ ...parts, tools }, turnId, signal);
  } finally {
    if (recorded !== undefined) await afterTurn(parts, turnId, recorded);
  }
}

/** Records the workspace after a turn that ran tools; says when old checkpoints went. */
async function afterTurn(
  parts: SessionTurnParts,
  turnId: string,
  recorded: Promise<void>,
): Promise<void> {
  await recorded;
  const dropped = (await parts.checkpoints?.after(turnId)) ?? [];
  if (dropped.length === 0) return;
  parts.notices.post({
    severity: "info",
    title: `checkpoints of ${dropped.length} older turn(s) were dropped`,
    description:
      "the store reached its size limit ([checkpoints] max_size_mb): /undo and /rewind no longer reach those turns",
  });
}

/** The model/tool loop of a prompt's turn. */
async function loop(parts: SessionTurnParts, turnId: string, signal: AbortSignal) {
  const { log, settings, publish } = parts;
  return await runTurnLoop(
    {
      log,
      client: parts.client,
      tools: parts.tools,
      definitions: parts.definitions,
      system: await parts.system(),
      cwd: parts.root,
      maxRequests: parts.maxRequests,
      settings: settings.current,
      model: (id) => parts.catalog.get(id),
      ...visionModelOf(parts.catalog.models()),
      toolContext: (toolCallId, signal, progress) =>
        createToolContext(
          {
            signal,
            sessionId: log.header.id,
            toolCallId,
            cwd: parts.root,
            roots: parts.directories?.() ?? [],
            knobs: settings.current().knobs,
            progress,
          },
          parts.approval,
        ),
      record: parts.record,
      publish,
      compactAt: parts.compactAt,
      now: parts.now,
      // Subagents of one step run side by side.
      concurrent: (name) => name === "task",
    },
    turnId,
    signal,
  );
}

/** A compaction on request: its own turn, with no user message. */
export async function compactTurn(
  parts: SessionTurnParts,
  turnId: string,
  signal: AbortSignal,
  focus: string | undefined,
): Promise<TurnOutcome> {
  parts.log.append({ type: "turn_start", turnId });
  parts.publish({ type: "turn_start", turnId, content: [] });
  const result = await compactContext(
    {
      log: parts.log,
      client: parts.client,
      systemPrompt: (await parts.system()).content,
      definitions: parts.definitions(),
      model: parts.catalog.get(parts.settings.current().model),
      publish: parts.publish,
      now: parts.now,
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

/** `tools`, whose calls run only once the turn's checkpoint (`record`) is recorded. */
function recordFirst(tools: ToolRegistry, record: () => Promise<void>): ToolRegistry {
  return {
    get names() {
      return tools.names;
    },
    definitions: (ctx) => tools.definitions(ctx),
    presentCall: (name, raw, ctx) => tools.presentCall(name, raw, ctx),
    async execute(name, raw, ctx) {
      await record();
      return tools.execute(name, raw, ctx);
    },
  };
}

/** The first model of the catalog with vision, when there is one. */
function visionModelOf(models: readonly ModelInfo[]): { visionModel?: string } {
  const id = models.find((model) => model.vision)?.id;
  return id === undefined ? {} : { visionModel: id };
}
