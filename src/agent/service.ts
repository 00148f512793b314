/**
 * The agent service: creates and resumes live sessions. Surfaces reach the loop only through
 * the handles it returns.
 */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ApprovalSeam } from "../approval/types.ts";
import { ConflictError, InvalidInputError } from "../errors.ts";
import type { CommandRunner } from "../exec/types.ts";
import type { InteractionSeam } from "../interaction/types.ts";
import type { Logger } from "../log.ts";
import type { ModelClient } from "../llm/types.ts";
import type { SessionLog, SessionStore } from "../session/types.ts";
import type { ToolRegistry } from "../tools/types.ts";
import { type ModelCatalogView, createAgentHandle } from "./handle.ts";
import { buildSystemPrompt, findInstructions } from "./system-prompt.ts";
import type { AgentHandle, AgentService, SessionSettings } from "./types.ts";

export interface AgentServiceDeps {
  readonly store: SessionStore;
  readonly client: ModelClient;
  readonly catalog: ModelCatalogView;
  readonly tools: ToolRegistry;
  readonly approval: ApprovalSeam;
  readonly runner: CommandRunner;
  readonly interaction: InteractionSeam;
  /** Settings of a session that has not changed them. */
  readonly defaults: SessionSettings;
  /** Model requests allowed in one turn before it ends `max_turn_requests`. */
  readonly maxRequestsPerTurn: number;
  /** The user's config dir, searched for an AGENTS.md. */
  readonly configDir?: string;
  /** The user's home dir: instruction files that resolve into its credential stores are skipped. */
  readonly homeDir: string;
  readonly platform: string;
  readonly now: () => Date;
  readonly logger: Logger;
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
      log,
      root,
      client: deps.client,
      catalog: deps.catalog,
      tools: deps.tools,
      approval: deps.approval,
      runner: deps.runner,
      interaction: deps.interaction,
      defaults: deps.defaults,
      maxRequests: deps.maxRequestsPerTurn,
      systemPrompt,
      logger: deps.logger,
      onDispose: () => live.delete(log.header.id),
    });
  }

  return {
    async create({ cwd }) {
      const root = sessionRoot(cwd);
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
        return open(log, sessionRoot(log.header.cwd));
      } catch (error) {
        live.delete(id);
        await log?.[Symbol.asyncDispose]();
        throw error;
      }
    },

    list: () => deps.store.list(),
  };
}

/** Checks that `cwd` is an absolute, existing directory and returns its realpath. */
function sessionRoot(cwd: string): string {
  if (!isAbsolute(cwd)) throw new InvalidInputError(`cwd must be an absolute path: ${cwd}`, { cwd });
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    throw new InvalidInputError(`cwd does not exist: ${cwd}`, { cwd });
  }
  if (!isDirectory) throw new InvalidInputError(`cwd is not a directory: ${cwd}`, { cwd });
  return realpathSync(cwd);
}
