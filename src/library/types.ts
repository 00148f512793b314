/**
 * Contracts of a session's library: the skills, custom commands and MCP prompts it offers as
 * slash commands (and, for skills, in the system prompt), and what it left out and why.
 * Surfaces reach it through the session's handle.
 */
import type { CustomCommand } from "./custom-command.ts";
import type { McpPrompt } from "../mcp/prompts.ts";
import type { UserContent } from "../session/events.ts";
import type { Skill } from "../skills/skill.ts";

export type { CustomCommand, McpPrompt, Skill };

/** An MCP prompt offered as `/<server>:<prompt>`. */
export interface LibraryPrompt {
  /** The command's name without the slash: `<server>:<prompt>`, each part made safe to type. */
  readonly name: string;
  readonly server: string;
  readonly prompt: McpPrompt;
}

/** A file (or prompt) the library left out, and why. */
export interface LibrarySkipped {
  readonly kind: "skill" | "command" | "prompt";
  /** The file (for a prompt: `<server>:<prompt>`). */
  readonly path: string;
  readonly reason: string;
  /** Left out because an entry of the same name wins: expected, so never warned about. */
  readonly overridden: boolean;
}

/** What the library offers now. */
export interface LibrarySnapshot {
  readonly skills: readonly Skill[];
  readonly commands: readonly CustomCommand[];
  readonly prompts: readonly LibraryPrompt[];
  readonly skipped: readonly LibrarySkipped[];
}

export interface SessionLibrary {
  /** What is loaded now (nothing before the first scan ends). */
  snapshot(): LibrarySnapshot;
  /** Resolves once the first scan of the session's folders is done (or gave up). */
  ready(): Promise<void>;
  /**
   * Scans the folders again (files whose identity and times did not change are not read
   * again); calls that arrive during a scan share the next one. Never rejects.
   */
  refresh(): Promise<void>;
  /** `listener` runs after every change of what `snapshot()` returns; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /**
   * The system prompt's skills block: made once, from the first scan, and the same bytes for
   * the rest of the session (empty without skills), or until a directory is added to it.
   */
  skillsBlock(): Promise<string>;
  /** Whether the skills block lists `name` (false before it is made). */
  listsSkill(name: string): boolean;
  /**
   * Gets an MCP prompt with its arguments as a turn's content. Rejects with ConflictError when
   * the server is not ready or fails, or with the signal's reason once it aborts.
   */
  getPrompt(
    server: string,
    prompt: string,
    args: Record<string, string>,
    signal: AbortSignal,
  ): Promise<UserContent[]>;
}
