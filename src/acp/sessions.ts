/**
 * The connection's table of bridged sessions: ids reserved while a load runs, one session per
 * id, sessions whose id was answered while their handle still opens, and the work in progress
 * that shutdown must wait for (a create or load that finishes after shutdown began gets its
 * handle disposed at once).
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { AgentHandle } from "../agent/types.ts";
import { ConflictError, DshError, NotFoundError, errorMessage, quoted } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { BridgeSession } from "./bridge-session.ts";
import type { ClientOptions } from "./capabilities.ts";
import { collectSoon } from "./idle-collect.ts";
import { sessionParts } from "./lazy-parts.ts";
import type { AcpApprovalRegistry, AcpFormRegistry } from "./types.ts";

export interface SessionTableDeps {
  readonly logger: Logger;
  /** What this client supports (known once `initialize` was answered). */
  readonly clientOptions: () => ClientOptions;
  readonly approvals?: AcpApprovalRegistry;
  readonly questions?: AcpFormRegistry;
}

export interface SessionTable {
  get(id: string): BridgeSession | undefined;
  /** The open session; ConflictError while its id is reserved, NotFoundError when unknown. */
  require(id: string): BridgeSession;
  /** Runs `work` with `id` reserved; ConflictError when it is reserved already. */
  reserve<T>(id: string, work: () => Promise<T>): Promise<T>;
  /**
   * Builds a handle and makes it live, as work shutdown waits for. Once shutdown began, a
   * handle that arrives is disposed at once and ConflictError is thrown.
   */
  open(build: () => Promise<AgentHandle>, client: acp.AgentContext): Promise<BridgeSession>;
  /**
   * Holds `id`, already answered to the client, until `handle` opens; then it is live as after
   * `open` and `opened` runs. A handle that fails leaves `id` failed: `ready` rejects with why
   * until it is closed.
   */
  openLater(
    id: string,
    started: { readonly handle: Promise<AgentHandle>; readonly open?: () => void },
    client: acp.AgentContext,
    opened?: (session: BridgeSession) => void,
  ): void;
  /** The session once it is open (at once when it is): as `require`, but waiting for a handle. */
  ready(id: string): Promise<BridgeSession>;
  /**
   * Runs `onCancel` for every `cancel` of the session until the returned function is called: a
   * prompt hears a cancel that comes before its turn starts (while the session opens, or while
   * its command is read), not only one its turn is running for.
   */
  onCancel(id: string, onCancel: () => void): () => void;
  /** Resolves once `id` is not opening any more (open, failed or unknown); never rejects. */
  settle(id: string): Promise<void>;
  /** Whether `id` is open, opening or failed on this connection. */
  has(id: string): boolean;
  /** Cancels the session's running turn and the prompts that wait to start one. */
  cancel(id: string): void;
  /** Takes a session out of the table (once it opened) and disposes it. */
  close(id: string): Promise<void>;
  /** Every open session. */
  all(): BridgeSession[];
  /** Stops taking sessions, waits for work in progress, disposes every session in parallel. */
  closeAll(): Promise<void>;
}

/** Creates an empty table. */
export function createSessionTable(deps: SessionTableDeps): SessionTable {
  const live = new Map<string, { session: BridgeSession; unregister: () => void }>();
  const reserved = new Set<string>();
  const pending = new Set<Promise<unknown>>();
  const opening = new Map<string, { opened: Promise<void>; open: () => void }>();
  /** The prompts of each session that wait to start their turn (`onCancel`). */
  const cancelListeners = new Map<string, Set<() => void>>();
  /** The entry of a session still opening, told to open now: a request waits for it. */
  const hurried = (id: string) => {
    const entry = opening.get(id);
    entry?.open();
    return entry;
  };
  const failed = new Map<string, DshError>();
  let closing = false;

  const track = <T>(work: Promise<T>): Promise<T> => {
    const settled = work.then(noop, noop);
    pending.add(settled);
    void settled.then(() => pending.delete(settled));
    return work;
  };

  const goLive = async (handle: AgentHandle, client: acp.AgentContext) => {
    const { openBridgeSession } = await sessionParts();
    if (closing) {
      void track(Promise.resolve(handle[Symbol.asyncDispose]()));
      throw new ConflictError("dsh is shutting down");
    }
    const session = openBridgeSession({
      handle,
      client,
      options: deps.clientOptions(),
      logger: deps.logger,
    });
    const unregisterApprovals = deps.approvals?.register(handle.sessionId, session) ?? noop;
    const unregisterQuestions = deps.questions?.register(handle.sessionId, session) ?? noop;
    const unregister = () => {
      unregisterApprovals();
      unregisterQuestions();
    };
    failed.delete(handle.sessionId);
    live.set(handle.sessionId, { session, unregister });
    return session;
  };

  const require = (id: string) => {
    if (reserved.has(id))
      throw new ConflictError(`session ${id} is still loading`, { sessionId: id });
    const entry = live.get(id);
    if (entry !== undefined) return entry.session;
    const failure = failed.get(id);
    if (failure !== undefined) throw failure;
    throw new NotFoundError(`no live session ${quoted(id)} on this connection`, {
      sessionId: quoted(id),
    });
  };

  const close = async (id: string) => {
    await hurried(id)?.opened;
    failed.delete(id);
    const entry = live.get(id);
    if (entry === undefined) return;
    live.delete(id);
    entry.unregister();
    await entry.session[Symbol.asyncDispose]();
    collectSoon();
  };

  return {
    get: (id) => live.get(id)?.session,
    require,
    openLater(id, started, client, opened) {
      const work = (async () => {
        try {
          const session = await goLive(await started.handle, client);
          opened?.(session);
        } catch (error) {
          failed.set(id, openFailure(id, error));
          deps.logger.error("a session could not open", { sessionId: id, error });
        } finally {
          opening.delete(id);
        }
      })();
      opening.set(id, { opened: work, open: started.open ?? noop });
      void track(work);
    },
    async ready(id) {
      await hurried(id)?.opened;
      return require(id);
    },
    onCancel(id, onCancel) {
      const listeners = cancelListeners.get(id) ?? new Set<() => void>();
      cancelListeners.set(id, listeners);
      listeners.add(onCancel);
      return () => {
        listeners.delete(onCancel);
        if (listeners.size === 0 && cancelListeners.get(id) === listeners)
          cancelListeners.delete(id);
      };
    },
    settle: async (id) => {
      await hurried(id)?.opened;
    },
    has: (id) => live.has(id) || opening.has(id) || failed.has(id),
    cancel(id) {
      for (const cancel of [...(cancelListeners.get(id) ?? [])]) cancel();
      live.get(id)?.session.cancel();
    },
    async reserve(id, work) {
      if (reserved.has(id))
        throw new ConflictError(`session ${id} is already loading`, { sessionId: id });
      reserved.add(id);
      try {
        return await track(work());
      } finally {
        reserved.delete(id);
      }
    },
    open(build, client) {
      return track(
        (async () => {
          if (closing) throw new ConflictError("dsh is shutting down");
          return goLive(await build(), client);
        })(),
      );
    },
    close: (id) => track(close(id)),
    all: () => [...live.values()].map((e) => e.session),
    async closeAll() {
      closing = true;
      for (const entry of opening.values()) entry.open();
      while (pending.size > 0) await Promise.all(pending);
      await Promise.all([...live.keys()].map(close));
    },
  };
}

/** What every later request of a session that could not open is answered with. */
function openFailure(id: string, error: unknown): DshError {
  if (error instanceof ConflictError) return error;
  return new DshError("session_failed", `session ${id} could not open: ${errorMessage(error)}`, {
    data: { sessionId: id },
    cause: error,
  });
}

function noop() {}
