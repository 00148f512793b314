/**
 * The composition root: picks the real implementation of every seam and wires them into an
 * agent service. Each surface (acp, chat, exec) composes once, with its own answerers.
 */
import { homedir, totalmem } from "node:os";
import { createAgentService } from "../agent/service.ts";
import type { AgentService, SessionSettings } from "../agent/types.ts";
import { createApprovalSeam } from "../approval/seam.ts";
import type { ApprovalAnswerer } from "../approval/types.ts";
import { commandLimits } from "../exec/limits.ts";
import { createCommandRunner } from "../exec/runner.ts";
import type { CommandRunner } from "../exec/types.ts";
import { createModelCatalog } from "../llm/catalog.ts";
import { createModelClient } from "../llm/client.ts";
import { createInteractionSeam } from "../interaction/seam.ts";
import type { InteractionProvider } from "../interaction/types.ts";
import type { ModelInfo } from "../llm/types.ts";
import type { Logger } from "../log.ts";
import { createSessionStore } from "../session/store.ts";
import type { SessionStore } from "../session/types.ts";
import { createAskUserQuestionTool } from "../tools/ask-user-question.ts";
import { createBashTool } from "../tools/bash.ts";
import { createFileTools } from "../tools/core-tools.ts";
import { createToolRegistry } from "../tools/registry.ts";
import type { Config } from "./config.ts";

export interface Composition extends AsyncDisposable {
  readonly service: AgentService;
  readonly store: SessionStore;
  readonly runner: CommandRunner;
  readonly models: () => readonly ModelInfo[];
  readonly defaults: SessionSettings;
}

export interface ComposeOptions {
  readonly config: Config;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** Who can answer approval requests, in order. None: every request is denied. */
  readonly answerers: readonly ApprovalAnswerer[];
  /** Who can answer structured questions, in order. None: questions are not offered. */
  readonly questioners?: readonly InteractionProvider[];
}

export function compose(options: ComposeOptions): Composition {
  const { config, logger } = options;
  const store = createSessionStore({ home: config.home, logger });
  const catalog = createModelCatalog({ defaultModel: config.model, userModels: config.models });
  const client = createModelClient({ baseUrl: config.baseUrl, apiKey: config.apiKey, logger });
  const home = options.env.HOME || homedir();
  const runner = createCommandRunner({
    env: options.env,
    sandbox: config.sandbox,
    home,
    stateDir: config.home,
    // The config file itself, not its directory: `DSH_CONFIG` may name a file in any folder.
    protectedDirs: [config.configPath],
    envConfig: { include: config.env.include, allowSecret: config.env.allow_secret },
    commandLimits: commandLimits(config.limits, totalmem()),
    logger,
  });
  const tools = createToolRegistry([
    // dsh's config file and its state (session logs, whose settings events a reload trusts)
    // are never written by the model, whatever the preset.
    ...createFileTools({ homeDir: home, protectedDirs: [config.configPath, config.home] }),
    createBashTool(),
    createAskUserQuestionTool(),
  ]);
  const approval = createApprovalSeam({
    answerers: options.answerers,
    onError: (error, request) =>
      logger.warn("an approval answerer failed; denied", { kind: request.kind, error }),
  });
  const interaction = createInteractionSeam({
    providers: options.questioners ?? [],
    onError: (error) => logger.warn("a question provider failed; treated as declined", { error }),
  });
  const defaults: SessionSettings = {
    model: catalog.default.id,
    effort: config.effort,
    knobs: config.knobs,
  };
  const service = createAgentService({
    store,
    client,
    catalog,
    tools,
    approval,
    runner,
    interaction,
    defaults,
    maxRequestsPerTurn: config.maxTurnRequests,
    configDir: config.configDir,
    homeDir: home,
    platform: `${process.platform} ${process.arch}`,
    now: () => new Date(),
    logger,
  });
  return {
    service,
    store,
    runner,
    models: () => catalog.models(),
    defaults,
    [Symbol.asyncDispose]: () => runner[Symbol.asyncDispose](),
  };
}
