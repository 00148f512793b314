/**
 * What each kind of subagent is: its system prompt, its tools and its permissions. `explore`
 * reads (and runs commands in the read-only sandbox, whatever the session's preset); `general`
 * has the session's tools under its preset; a custom agent has exactly the tools its file lists.
 * No subagent gets `task` (no recursion) or `ask_user_question` (it cannot ask the user).
 */
import type { Knobs } from "../../permission/knobs.ts";
import type { CustomAgent } from "./agent-files.ts";

/** Tools no subagent gets. */
export const NEVER_FOR_SUBAGENTS: ReadonlySet<string> = new Set(["task", "ask_user_question"]);

/** What `explore` may call, where the session offers it. */
const EXPLORE_TOOLS = ["read_file", "glob", "grep", "bash", "web_fetch", "web_search"];

const COMMON =
  "You are a subagent of dsh, a coding agent: the main agent gave you one task. Work on it " +
  "with your tools, then answer with what the main agent asked for: concrete findings, paths " +
  "with line numbers, the commands you ran and what they showed. Your final message is all " +
  "the main agent sees of your work, so make it complete and self-contained, but no longer " +
  "than it needs to be. You cannot ask the user anything.";

const EXPLORE_PROMPT = `${COMMON}\nYou explore: read, search and run read-only commands (git log, ls, tests that write nothing). You cannot change any file: commands run in a read-only sandbox. Search broadly first (glob, grep), then read what matters.`;

const GENERAL_PROMPT = `${COMMON}\nYou may change files and run commands as the session's permissions allow. Keep changes minimal and focused on the task; say in your answer which files you changed.`;

export interface SubagentKind {
  /** `explore`, `general` or the custom agent's name. */
  readonly name: string;
  /** The system prompt before the session's environment lines. */
  readonly prompt: string;
  /** Which of the session's tools it gets. */
  readonly allows: (tool: string) => boolean;
  /** Its permissions, from the session's. */
  readonly knobs: (session: Knobs) => Knobs;
  /** Its model when not the session's. */
  readonly model?: string;
  /** Refuses a call it may not make (explore's escape from the sandbox), with why. */
  readonly refuse?: (tool: string, input: unknown) => string | undefined;
}

export const EXPLORE: SubagentKind = {
  name: "explore",
  prompt: EXPLORE_PROMPT,
  allows: (tool) => EXPLORE_TOOLS.includes(tool),
  knobs: (session) => ({ ...session, sandboxMode: "read-only" }),
  refuse(tool, input) {
    if (tool !== "bash" || typeof input !== "object" || input === null) return undefined;
    const { escalate, run_in_background } = input as Record<string, unknown>;
    if (escalate === true)
      return "An explore task's commands run in the read-only sandbox; they cannot leave it.";
    if (run_in_background === true) return "An explore task cannot start background commands.";
    return undefined;
  },
};

export const GENERAL: SubagentKind = {
  name: "general",
  prompt: GENERAL_PROMPT,
  allows: (tool) => !NEVER_FOR_SUBAGENTS.has(tool),
  knobs: (session) => session,
};

/** A custom agent's kind: its body as its prompt, its listed tools (all of general's without). */
export function customKind(agent: CustomAgent): SubagentKind {
  const listed = agent.tools === undefined ? undefined : new Set(agent.tools);
  return {
    name: agent.name,
    prompt: agent.systemPrompt,
    allows: (tool) => !NEVER_FOR_SUBAGENTS.has(tool) && (listed?.has(tool) ?? true),
    knobs: (session) => session,
    ...(agent.model === undefined ? {} : { model: agent.model }),
  };
}
