/**
 * The connection's table of bridged sessions: ids reserved while a load runs, one session per
 * id, and the work in progress that shutdown must wait for (a create or load that finishes
 * after shutdown began gets its handle disposed at once).
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { AgentHandle } from "../agent/types.ts";
import { ConflictError, NotFoundError, quoted } from "../errors.ts";
import type { Logger } from "../log.ts";
import { type BridgeSession, openBridgeSession } from "./bridge-session.ts";
import type { ClientOptions } from "./capabilities.ts";
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
  /** Takes a session out of the table and disposes it. */
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
  let closing = false;

  const track = <T>(work: Promise<T>): Promise<T> => {
    const settled = work.then(noop, noop);
    pending.add(settled);
    void settled.then(() => pending.delete(settled));
    return work;
  };

  const close = async (id: string) => {
    const entry = live.get(id);
    if (entry === undefined) return;
    live.delete(id);
    entry.unregister();
    await entry.session[Symbol.asyncDispose]();
  };

  return {
    get: (id) => live.get(id)?.session,
    require(id) {
      if (reserved.has(id))
        throw new ConflictError(`session ${id} is still loading`, { sessionId: id });
      const entry = live.get(id);
      if (entry !== undefined) return entry.session;
      throw new NotFoundError(`no live session ${quoted(id)} on this connection`, {
        sessionId: quoted(id),
      });
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
          const handle = await build();
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
          live.set(handle.sessionId, { session, unregister });
          return session;
        })(),
      );
    },
    close: (id) => track(close(id)),
    all: () => [...live.values()].map((e) => e.session),
    async closeAll() {
      closing = true;
      while (pending.size > 0) await Promise.all(pending);
      await Promise.all([...live.keys()].map(close));
    },
  };
}

function noop() {}
