/**
 * A session's way to write `session/update`s: in order, never throwing (a failed send is
 * logged, once at warn), with one batch that may wait for later but never lands in the
 * middle of what is sent after it.
 */
import * as acp from "@agentclientprotocol/sdk";
import type { Logger } from "../log.ts";

export interface UpdateSenderDeps {
  readonly client: acp.AgentContext;
  readonly sessionId: string;
  readonly logger: Logger;
}

/** Updates held for later: as they are, or made when they go out. */
export type DeferredUpdates = readonly acp.SessionUpdate[] | (() => readonly acp.SessionUpdate[]);

export interface UpdateSender {
  /** Sends what `sendLater` holds, then `updates`. */
  send(updates: readonly acp.SessionUpdate[]): Promise<void>;
  /** Holds `updates` for `ms` (replacing what it held); dropped once closed. */
  sendLater(ms: number, updates: DeferredUpdates): void;
  /** Moves what `sendLater` holds to `ms` from now; nothing when it holds nothing. */
  postpone(ms: number): void;
  /** Drops what `sendLater` holds, and every later `sendLater`. */
  close(): void;
}

export function createUpdateSender(deps: UpdateSenderDeps): UpdateSender {
  const { client, sessionId, logger } = deps;
  let sendFailed = false;
  let closed = false;
  let deferred: { timer: ReturnType<typeof setTimeout>; updates: DeferredUpdates } | undefined;

  const send = async (updates: readonly acp.SessionUpdate[]) => {
    if (deferred !== undefined) {
      const early = deferred;
      deferred = undefined;
      clearTimeout(early.timer);
      await sendNow(typeof early.updates === "function" ? early.updates() : early.updates);
    }
    await sendNow(updates);
  };

  const sendNow = async (updates: readonly acp.SessionUpdate[]) => {
    for (const update of updates) {
      try {
        await client.notify(acp.methods.client.session.update, { sessionId, update });
      } catch (error) {
        // The client is gone or the pipe broke: the turn and its log go on regardless.
        const data = { sessionId, update: update.sessionUpdate, error };
        if (sendFailed) logger.debug("could not send a session update", data);
        else
          logger.warn("could not send a session update; later failures are logged at debug", data);
        sendFailed = true;
      }
    }
  };

  return {
    send,
    sendLater(ms, updates) {
      if (closed) return;
      if (deferred !== undefined) clearTimeout(deferred.timer);
      deferred = { timer: setTimeout(() => void send([]), ms), updates };
    },
    postpone(ms) {
      if (deferred === undefined) return;
      clearTimeout(deferred.timer);
      deferred.timer = setTimeout(() => void send([]), ms);
    },
    close() {
      closed = true;
      if (deferred !== undefined) clearTimeout(deferred.timer);
      deferred = undefined;
    },
  };
}
