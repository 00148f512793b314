/**
 * Contracts between the agent and the surfaces that drive it (ACP bridge, terminal). Surfaces
 * import only this file from `src/agent`, never the loop.
 */
import type { NewSession } from "./new-session.ts";
import type { SessionCheckpoints } from "../checkpoints/session-checkpoints.ts";
import type { Knobs } from "../permission/knobs.ts";
import type { LoggedError, SessionEvent, StopReason, UserContent } from "../session/events.ts";
import { type SessionSettings, isSettingEvent } from "../session/settings.ts";
import type { SessionSummary } from "../session/types.ts";
import type { RenderIntent } from "../render/intent.ts";
import type { Effort, Usage } from "../llm/types.ts";
import type { McpServerSpec, McpServerStatus } from "../mcp/types.ts";
import type { SessionLibrary } from "../library/types.ts";
import { parseRawInput } from "../tools/raw-arguments.ts";
import type { ProgressExit } from "../tools/types.ts";

export type {
  Effort,
  Knobs,
  LoggedError,
  McpServerSpec,
  McpServerStatus,
  SessionEvent,
  SessionSettings,
  SessionSummary,
  StopReason,
  UserContent,
};

/** Reasons a live turn can end with (a live turn is never `interrupted`). */
export type TurnStopReason = Exclude<StopReason, "interrupted">;

export interface TurnOutcome {
  readonly turnId: string;
  readonly reason: TurnStopReason;
  /** Present when `reason` is `error`: the typed error's code and message. */
  readonly error?: LoggedError;
}

/** What subscribers see while a turn runs. Deltas are live only; the log holds whole blocks. */
export type LiveEvent =
  | {
      readonly type: "turn_start";
      readonly turnId: string;
      readonly content: readonly UserContent[];
    }
  | { readonly type: "reasoning_delta"; readonly turnId: string; readonly text: string }
  | { readonly type: "text_delta"; readonly turnId: string; readonly text: string }
  | {
      readonly type: "tool_call";
      readonly turnId: string;
      readonly callId: string;
      readonly name: string;
      readonly rawInput: unknown;
      readonly intent: RenderIntent;
    }
  /** A announced call starts running (calls of one step run one after another). */
  | { readonly type: "tool_start"; readonly turnId: string; readonly callId: string }
  | {
      readonly type: "tool_progress";
      readonly turnId: string;
      readonly callId: string;
      readonly chunk: string;
      /** A background command the call started has ended (after the call's result). */
      readonly exit?: ProgressExit;
    }
  | {
      readonly type: "tool_result";
      readonly turnId: string;
      readonly callId: string;
      readonly isError: boolean;
      readonly output: string;
      readonly intent: RenderIntent;
    }
  | {
      readonly type: "usage";
      readonly turnId: string;
      readonly usage: Usage;
      readonly contextWindow: number;
      /** Tokens in the context now: the last request's prompt plus output, or an estimate. */
      readonly contextUsed: number;
      /** The session's cumulative cost in USD (across restarts). */
      readonly costUsd: number;
    }
  /**
   * A compaction's progress: `in_progress`, then `completed` (with the summary), `failed`
   * (with why; the history is as it was) or `cancelled`.
   */
  | {
      readonly type: "compaction";
      readonly turnId: string;
      readonly compactionId: string;
      readonly status: CompactionStatus;
      readonly summary?: string;
      readonly error?: string;
      /** Estimated context tokens before and after (completed only). */
      readonly tokensBefore?: number;
      readonly tokensAfter?: number;
    }
  | ({ readonly type: "turn_end" } & TurnOutcome)
  /** Something the user should know now that is not part of the answer: a retry, a stall, a tool server that failed. */
  | {
      readonly type: "notice";
      readonly turnId?: string;
      readonly severity: "info" | "warning" | "error";
      readonly title: string;
      readonly description?: string;
    };

export type CompactionStatus = "in_progress" | "completed" | "failed" | "cancelled";

/**
 * The live event a logged event is, built from the log alone: the agent publishes what it logs
 * through this, and replay rebuilds a transcript through it, so the two never differ. A whole
 * reasoning or text block is one delta; a call carries its arguments parsed for display. None
 * for what has no live form of its own: a turn's start and the user's message (the live start
 * carries the prompt), the anchor, usage (its live form carries the session's running totals)
 * and settings.
 */
export function liveEventOf(event: SessionEvent): LiveEvent | undefined {
  switch (event.type) {
    case "reasoning":
      return { type: "reasoning_delta", turnId: event.turnId, text: event.text };
    case "assistant_text":
      return { type: "text_delta", turnId: event.turnId, text: event.text };
    case "tool_call": {
      const { turnId, callId, name, intent } = event;
      return {
        type: "tool_call",
        turnId,
        callId,
        name,
        rawInput: parseRawInput(event.arguments),
        intent,
      };
    }
    case "tool_result": {
      const { turnId, callId, isError, output, intent } = event;
      return { type: "tool_result", turnId, callId, isError, output, intent };
    }
    case "compaction": {
      const { turnId, compactionId, summary, tokensBefore, tokensAfter } = event;
      return {
        type: "compaction",
        turnId,
        compactionId,
        status: "completed",
        summary,
        tokensBefore,
        tokensAfter,
      };
    }
    case "task_step": {
      const { turnId, callId, line } = event;
      return { type: "tool_progress", turnId, callId, chunk: `${line}\n` };
    }
    case "turn_end": {
      const { turnId, reason, error } = event;
      return error === undefined
        ? { type: "turn_end", turnId, reason }
        : { type: "turn_end", turnId, reason, error };
    }
    case "turn_start":
    case "user_message":
    case "prompt_submit":
    case "usage":
    case "rewind":
    case "directory":
      return undefined;
    default: {
      // Asked last: most of a log is not settings.
      if (isSettingEvent(event)) return undefined;
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}

/** What `/status` and the terminal show about a session's context and cost. */
export interface SessionStatus {
  /** Tokens in the context as of the last request (prompt + output), 0 before any. */
  readonly contextUsed: number;
  /** The current model's window. */
  readonly contextWindow: number;
  /** Cumulative cost of the session in USD (across restarts), 0 when the model has no prices. */
  readonly costUsd: number;
  /** The session's background commands (running ones and ended ones), oldest first; absent without any. */
  readonly background?: readonly BackgroundCommand[];
}

/** A background command as `/status` lists it. */
export interface BackgroundCommand {
  readonly id: string;
  readonly command: string;
  /** `running`, `exited <code>` or `killed`. */
  readonly status: string;
}

export interface AgentHandle extends AsyncDisposable {
  readonly sessionId: string;
  readonly cwd: string;
  /**
   * Runs one turn and resolves with its end (never rejects for model or tool failures: those
   * end the turn `error`). Rejects with ConflictError while another turn runs, and with
   * InvalidInputError for empty content. Aborting `signal` is the one way to cancel the turn:
   * it stops the stream and the running tool, and the turn ends `cancelled`. A signal aborted
   * already ends the turn `cancelled` before any model request; the prompt is still logged.
   */
  prompt(content: readonly UserContent[], signal: AbortSignal): Promise<TurnOutcome>;
  /** Live events from now on, each turn ending with its `turn_end`. Ends on dispose. */
  events(): AsyncIterable<LiveEvent>;
  /** Resolves when no turn runs and the log is flushed. */
  idle(): Promise<void>;
  /** The session's log so far (for replay). */
  history(): readonly SessionEvent[];
  settings(): SessionSettings;
  /**
   * Changes settings. During a turn the change is logged at once; while idle it is held in
   * memory and logged right after the next prompt-submit anchor. Throws InvalidInputError
   * for an unknown model or a value out of range.
   */
  configure(change: Partial<SessionSettings>): SessionSettings;
  /** The session's MCP servers (the config file's and its own) and where each is. */
  mcpServers(): readonly McpServerStatus[];
  /**
   * Compacts the context now: a turn of its own (it is logged, it can be cancelled, and it ends
   * with a TurnOutcome; a failure leaves the history as it was). ConflictError while a turn runs.
   */
  compact(options: { readonly focus?: string; readonly signal: AbortSignal }): Promise<TurnOutcome>;
  /** Context used / window and cost so far. */
  status(): SessionStatus;
  /**
   * The session's skills, custom commands and MCP prompts, found in the background as it opens
   * (the slash commands both surfaces offer beside the built-in ones).
   */
  readonly library: SessionLibrary;
  /** The workspace's state before and after each prompt turn (`/undo`, `/rewind`, `/diff`). */
  readonly checkpoints?: SessionCheckpoints;
  /**
   * Takes the conversation back to before prompt turn `turnId`, which it still shows: a
   * `rewind` event, after which the model, replay and a reload read the log without that turn
   * and those after it (the log keeps them). ConflictError while a turn runs.
   */
  rewind(turnId: string): void;
  /** The directories the session works in besides its cwd (realpaths), in the order added. */
  directories(): readonly string[];
  /**
   * Adds one (`/add-dir`): absolute and existing, else InvalidInputError naming it; logged, so
   * a reload restores it. Resolves with its realpath. ConflictError while a turn runs.
   */
  addDirectory(path: string): Promise<string>;
}

/** What a session is opened with besides its directory. */
export interface SessionOpenOptions {
  /**
   * The session's own MCP servers (the editor's), started beside the config file's; one of
   * them wins a name clash. They start in the background: opening never waits for them.
   */
  readonly mcpServers?: readonly McpServerSpec[];
  /**
   * More directories the session works in (absolute, existing; InvalidInputError naming the
   * entry otherwise), beside those its log already names; each is logged.
   */
  readonly additionalDirectories?: readonly string[];
}

/** A new session whose log is made (its id is final) while its handle is still opening. */
export interface StartedSession {
  readonly sessionId: string;
  /** The session's settings: a new session starts with the defaults. */
  readonly settings: SessionSettings;
  /** Rejects when the session cannot open; the log is closed then. */
  readonly handle: Promise<AgentHandle>;
  /**
   * Opens the handle now, where the service waits for a quiet moment to open it (`dsh acp`);
   * absent where the handle opens at once.
   */
  readonly open?: () => void;
}

export interface AgentService {
  /** `cwd` must be an absolute, existing directory (InvalidInputError otherwise). */
  create(options: { cwd: string } & SessionOpenOptions): Promise<AgentHandle>;
  /**
   * `create` in two steps: resolves once the request is checked and the session's log made,
   * and opens its handle after that. `dsh acp` answers `session/new` at the first step.
   */
  start(options: { cwd: string } & SessionOpenOptions): Promise<StartedSession>;
  /** Opens the handle of a session `makeNewSession` made; the log is closed if that fails. */
  adopt(session: NewSession, options: SessionOpenOptions): Promise<AgentHandle>;
  /**
   * Reopens a saved session. InvalidInputError for a malformed id (no file touched) or a cwd
   * that differs from the logged one; NotFoundError for an unknown id; ConflictError when the
   * session is already live in this process.
   */
  resume(id: string, options?: { cwd?: string } & SessionOpenOptions): Promise<AgentHandle>;
  /**
   * A new session (its own id and log) whose history is `history`, another session's events
   * (all of them, or those before a turn): copied in order, so the seqs compactions and
   * rewinds name stay true. The source is not touched.
   */
  fork(
    options: { cwd: string; history: readonly SessionEvent[] } & SessionOpenOptions,
  ): Promise<AgentHandle>;
  list(): Promise<SessionSummary[]>;
  /**
   * Deletes a saved session's log. ConflictError while the session is open (in this process:
   * dispose its handle first; or in another); NotFoundError for an unknown id.
   */
  delete(id: string): Promise<void>;
}
