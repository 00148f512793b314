/** Waiting on a session's live events in tests. */
import type { AgentHandle, LiveEvent } from "../../src/agent/types.ts";

/** Resolves with the first live event from now on that `matches`. */
export async function nextEvent(
  handle: AgentHandle,
  matches: (event: LiveEvent) => boolean,
): Promise<LiveEvent> {
  for await (const event of handle.events()) if (matches(event)) return event;
  throw new Error("the session ended first");
}
