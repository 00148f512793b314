/**
 * The bridge's side of one session open on the connection (the agent's side is its
 * `AgentHandle`): the handle, the pump that turns the handle's live events into
 * `session/update`s in order, and the single prompt in flight. A prompt settles
 * only after the pump has written every update of its own turn, so nothing of a turn ever
 * follows its response.
 */
import * as acp from "@agentclientprotocol/sdk";
import { sleep } from "../abortable.ts";
import type { AgentHandle, LiveEvent, TurnOutcome, UserContent } from "../agent/types.ts";
import type { ApprovalAnswer, ApprovalDecision, AskedRequest } from "../approval/types.ts";
import { ConflictError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { decisionOf, permissionParams } from "./approval.ts";
import { createCommandAdvertiser } from "./command-updates.ts";
import type { ClientOptions } from "./capabilities.ts";
import { promptTitle } from "../session/folds.ts";
import type { AcpFormTarget, AcpPermissionTarget } from "./types.ts";
import { type SessionQuestion, askUser } from "./ask-user.ts";
import { createUpdateMapper } from "./update-mapper.ts";
import { type DeferredUpdates, createUpdateSender } from "./update-sender.ts";
import { createWaiters } from "./waiters.ts";

export interface BridgeSessionDeps {
  readonly handle: AgentHandle;
  /** The connection's way to the client. */
  readonly client: acp.AgentContext;
  /** What the client supports. */
  readonly options: ClientOptions;
  readonly logger: Logger;
}

export interface BridgeSession extends AcpPermissionTarget, AcpFormTarget, AsyncDisposable {
  readonly id: string;
  readonly handle: AgentHandle;
  /** Whether a prompt is in flight. */
  readonly busy: boolean;
  /** Sends updates in order; a failed send is logged, never thrown. */
  send(updates: readonly acp.SessionUpdate[]): Promise<void>;
  /**
   * Runs one turn and resolves once all its updates are written. ConflictError while another
   * prompt is in flight; aborting `signal` cancels the turn (it still resolves `cancelled`).
   */
  prompt(content: readonly UserContent[], signal: AbortSignal): Promise<TurnOutcome>;
  /**
   * Runs a turn `start` begins on the handle (a prompt, a compaction) as the prompt in flight,
   * with the same rules as `prompt`: one at a time, resolved once its updates are written.
   */
  runTurn(
    start: (signal: AbortSignal) => Promise<TurnOutcome>,
    signal: AbortSignal,
  ): Promise<TurnOutcome>;
  /**
   * Sends `updates` after `ms`, or before anything else this session sends if that comes
   * first, so they never land in the middle of a turn; dropped if the session is disposed. A
   * function is called when they go out, for updates that must be current then.
   */
  sendLater(ms: number, updates: DeferredUpdates): void;
  /**
   * Advertises the session's slash commands: `delayMs` from now (after `session/new`), else at
   * once; after that again whenever they change, at most once a second.
   */
  advertiseCommands(delayMs?: number): Promise<void>;
  /** Moves what `sendLater` holds to `ms` from now; nothing when it holds nothing. */
  postpone(ms: number): void;
  /**
   * Asks the user a yes/no question outside any turn (a command's, such as /undo's conflicts):
   * a tool call of its own, then a permission request on it. False when declined or unanswered.
   */
  ask(question: SessionQuestion, signal: AbortSignal): Promise<boolean>;
  /** Cancels the running turn, if any. */
  cancel(): void;
  /** Resolves once no prompt is in flight. */
  settled(): Promise<void>;
}

/** Opens the bridge's side of the session `handle` runs, and starts pumping its events. */
export function openBridgeSession(deps: BridgeSessionDeps): BridgeSession {
  const { handle, client, logger } = deps;
  const sessionId = handle.sessionId;
  const mapper = createUpdateMapper(deps.options);
  const turns = createWaiters<string>();
  // A step can announce any number of calls: remember all of this turn's, forget them at its end.
  const calls = createWaiters<string>(Number.POSITIVE_INFINITY);
  let titled = handle.history().some((e) => e.type === "user_message");
  let inFlight: { controller: AbortController; settled: Promise<void> } | undefined;
  let disposed: Promise<void> | undefined;

  const sender = createUpdateSender({ client, sessionId, logger });
  const send = sender.send;

  const dispatch = async (event: LiveEvent) => {
    if (event.turnId !== undefined && turns.released(event.turnId)) {
      logger.debug("dropped a live event after its turn ended", { sessionId, type: event.type });
      return;
    }
    if (event.type === "turn_start" && !titled) {
      titled = true;
      const title = promptTitle(event.content);
      if (title !== undefined) await send([{ sessionUpdate: "session_info_update", title }]);
    }
    await send(mapper.map(event));
    // Questions about a call wait for its `in_progress` update: a status written after a
    // permission request would replace Zed's "waiting for confirmation" and cancel the prompt.
    if (event.type === "tool_start") calls.release(event.callId);
    if (event.type === "turn_end") {
      turns.release(event.turnId);
      calls.wakeAll();
      calls.forget();
    }
  };

  const events = handle.events()[Symbol.asyncIterator]();
  const pump = pumpEvents(events, dispatch, (failure) => {
    if (failure !== undefined)
      logger.error("the session's live events failed", { sessionId, error: failure.error });
    turns.close();
    calls.close();
  });

  const cancel = () => inFlight?.controller.abort();
  /** Resolves once the call's `in_progress` update is out and the client had time to apply it. */
  const shownOnClient = async (callId: string, signal: AbortSignal) => {
    await calls.wait(callId, signal);
    await sleep(CLIENT_SETTLE_MS, signal);
  };
  const { sendLater } = sender;
  const commands = createCommandAdvertiser({ handle, send, sendLater });

  const runTurn = async (
    start: (signal: AbortSignal) => Promise<TurnOutcome>,
    signal: AbortSignal,
  ): Promise<TurnOutcome> => {
    if (disposed !== undefined)
      throw new ConflictError(`session ${sessionId} is closed`, { sessionId });
    if (inFlight !== undefined) {
      throw new ConflictError(`a prompt is already running in session ${sessionId}`, {
        sessionId,
      });
    }
    // The prompt's one controller: `session/cancel`, the request's own signal and disposal all
    // abort it, and its signal is the one the turn runs under.
    const controller = new AbortController();
    const abort = () => controller.abort();
    signal.addEventListener("abort", abort, { once: true });
    if (signal.aborted) controller.abort();
    const run = (async () => {
      const outcome = await start(controller.signal);
      await turns.wait(outcome.turnId);
      return outcome;
    })();
    inFlight = { controller, settled: run.then(noop, noop) };
    try {
      return await run;
    } finally {
      signal.removeEventListener("abort", abort);
      inFlight = undefined;
    }
  };

  return {
    id: sessionId,
    handle,
    get busy() {
      return inFlight !== undefined;
    },
    send,
    prompt: (content, signal) =>
      runTurn((turnSignal) => handle.prompt(content, turnSignal), signal),
    runTurn,
    sendLater,
    advertiseCommands: (delayMs) => commands.first(delayMs),
    postpone: sender.postpone,
    cancel,
    settled: () => inFlight?.settled ?? Promise.resolve(),
    ask: (question, signal) => askUser({ client, send, sessionId, logger }, question, signal),
    async requestPermission(
      request: AskedRequest & { readonly toolCallId: string },
      signal: AbortSignal,
    ) {
      // The call must be on the client, and running, before a permission prompt patches it (zed.md §4).
      await shownOnClient(request.toolCallId, signal);
      if (signal.aborted) return "deny" satisfies ApprovalDecision;
      return askPermission(deps, request, signal, cancel);
    },
    canElicitForm: deps.options.elicitForm,
    async elicit(params, signal) {
      // Like a permission prompt, a tool call's form belongs on a call the client already shows.
      if ("toolCallId" in params && typeof params.toolCallId === "string")
        await shownOnClient(params.toolCallId, signal);
      signal.throwIfAborted();
      return client.request(acp.methods.client.elicitation.create, params, {
        cancellationSignal: signal,
        stopWaitingOnCancel: true,
      });
    },
    [Symbol.asyncDispose]() {
      disposed ??= (async () => {
        commands.stop();
        sender.close();
        cancel();
        await inFlight?.settled;
        try {
          await handle[Symbol.asyncDispose]();
        } catch (error) {
          logger.error("disposing a session failed", { sessionId, error });
        }
        // The handle ends its event stream on dispose; ending our iterator too guards the pump.
        void events.return?.().catch(noop);
        await pump;
      })();
      return disposed;
    },
  };
}

function noop() {}

/** Asks the client about `request`; no answer is deny, and `cancelled` also ends the turn. */
async function askPermission(
  deps: BridgeSessionDeps,
  request: AskedRequest & { readonly toolCallId: string },
  signal: AbortSignal,
  cancel: () => void,
): Promise<ApprovalAnswer> {
  try {
    const response = await deps.client.request(
      acp.methods.client.session.requestPermission,
      permissionParams(request, deps.options),
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    );
    // The client answers `cancelled` when the user stopped the turn (acp.md §5): end it.
    if (response.outcome.outcome === "cancelled") cancel();
    return decisionOf(response);
  } catch (error) {
    const sessionId = deps.handle.sessionId;
    deps.logger.info("a permission request ended without an answer; denied", { sessionId, error });
    return "deny";
  }
}

/** Hands each of `events` to `dispatch` in order; `ended` runs once, with what failed if anything did. */
async function pumpEvents(
  events: AsyncIterator<LiveEvent>,
  dispatch: (event: LiveEvent) => Promise<void>,
  ended: (failure: { readonly error: unknown } | undefined) => void,
): Promise<void> {
  let failure: { error: unknown } | undefined;
  try {
    for (let next = await events.next(); next.done !== true; next = await events.next()) {
      await dispatch(next.value);
    }
  } catch (error) {
    failure = { error };
  } finally {
    ended(failure);
  }
}

/**
 * Zed applies notifications apart from requests (zed.md §7.1), so a status update written just
 * before a permission request could still land after it and cancel the prompt. A short pause
 * lets the client apply what was already sent; an abort ends it at once.
 */
const CLIENT_SETTLE_MS = 50;
