/**
 * Notices a session's parts raise for the user (an MCP server that failed). They reach the
 * user inside a turn, so every surface can show them, with or without a notice channel of its
 * own: one raised during a turn goes out at once; one raised while idle waits for the next
 * turn's start. Each is delivered once.
 */
import type { LiveEvent } from "./types.ts";

/** A notice without its turn. */
export type Notice = Omit<Extract<LiveEvent, { type: "notice" }>, "type" | "turnId">;

export interface NoticeBox {
  /** Raises a notice: delivered now when a turn listens, else held for the next turn. */
  post(notice: Notice): void;
  /** Hands the held notices to `deliver`, which then gets new ones until `release()`. */
  listen(deliver: (notice: Notice) => void): void;
  release(): void;
}

export function createNoticeBox(): NoticeBox {
  const held: Notice[] = [];
  let deliver: ((notice: Notice) => void) | undefined;
  return {
    post(notice) {
      if (deliver === undefined) held.push(notice);
      else deliver(notice);
    },
    listen(listener) {
      deliver = listener;
      for (const notice of held.splice(0)) listener(notice);
    },
    release() {
      deliver = undefined;
    },
  };
}
