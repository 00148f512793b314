/** What a session's `task` tool is made with, once per session. */
import type { CustomAgent } from "./agent-files.ts";

export interface TaskSetup {
  /** The session's custom agents, found as it opens. */
  readonly agents: Promise<readonly CustomAgent[]>;
  /** The environment lines every subagent's system prompt ends with. */
  readonly environment: string;
  /** `max_subagents`: subagents that run at once. */
  readonly maxConcurrent: number;
}
