/**
 * The agent service: creates and resumes live sessions. Surfaces reach the loop only through
 * the handles it returns.
 */
import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { checkCwd } from "../session/cwd.ts";
import { ConflictError, InvalidInputError } from "../errors.ts";
import type { SessionLog, SessionStore } from "../session/types.ts";
import { type AgentCollaborators, createAgentHandle } from "./handle.ts";
import { buildSystemPrompt, findInstructions } from "./system-prompt.ts";
import type { AgentHandle, AgentService } from "./types.ts";

export interface AgentServiceDeps extends AgentCollaborators {
  readonly store: SessionStore;
  /** Model requests allowed in one turn before it ends `max_turn_requests`. */
  readonly maxRequestsPerTurn: number;
  /** The user's config dir, searched for an AGENTS.md. */
  readonly configDir?: string;
  /** The user's home dir: instruction files that resolve into its credential stores are skipped. */
  readonly homeDir: string;
  readonly platform: string;
  readonly now: () => Date;
}

export function createAgentService(deps: AgentServiceDeps): AgentService {
  /** Ids of sessions live (or being opened) in this process: one writer per session. */
  const live = new Set<string>();

  function open(log: SessionLog, root: string): AgentHandle {
    const systemPrompt = buildSystemPrompt({
      cwd: root,
      platform: deps.platform,
      date: deps.now().toISOString().slice(0, 10),
      instructions: findInstructions(root, deps.configDir, deps.homeDir),
    });
    return createAgentHandle({
      ...deps,
      log,
      root,
      maxRequests: deps.maxRequestsPerTurn,
      systemPrompt,
      onDispose: () => live.delete(log.header.id),
    });
  }

  return {
    async create({ cwd }) {
      const root = await sessionRoot(cwd);
      const log = await deps.store.create({ cwd });
      live.add(log.header.id);
      return open(log, root);
    },

    async resume(id, options = {}) {
      if (live.has(id)) throw new ConflictError(`session ${id} is already open`, { sessionId: id });
      live.add(id);
      let log: SessionLog | undefined;
      try {
        log = await deps.store.open(id);
        if (options.cwd !== undefined && resolve(options.cwd) !== resolve(log.header.cwd)) {
          throw new InvalidInputError(
            `session ${id} belongs to ${log.header.cwd}, not ${options.cwd}`,
            { sessionId: id, cwd: log.header.cwd },
          );
        }
        return open(log, await sessionRoot(log.header.cwd));
      } catch (error) {
        live.delete(id);
        await log?.[Symbol.asyncDispose]();
        throw error;
      }
    },

    list: () => deps.store.list(),

    async delete(id) {
      if (live.has(id)) throw new ConflictError(`session ${id} is open`, { sessionId: id });
      await deps.store.delete(id);
    },
  };
}

/** Checks `cwd` (absolute, an existing directory, no kernel file system) and returns its realpath. */
async function sessionRoot(cwd: string): Promise<string> {
  await checkCwd(cwd);
  return realpath(cwd);
}
