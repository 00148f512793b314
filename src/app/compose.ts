/**
 * The composition root: picks the real implementation of every seam and wires them into an
 * agent service. Each surface (acp, chat, exec) composes once, with its own answerers.
 */
import { homedir, totalmem } from "node:os";
import { createAgentService } from "../agent/service.ts";
import { reservedCommandNames } from "../commands/index.ts";
import type { AgentService, SessionSettings } from "../agent/types.ts";
import { createApprovalSeam } from "../approval/seam.ts";
import { type RuleBook, createRuleBook } from "../rules/store.ts";
import { hostRuleText } from "../rules/host-rule.ts";
import { type NetworkService, createNetworkService } from "../network/service.ts";
import type { ApprovalAnswerer } from "../approval/types.ts";
import { commandLimits, walkLimits } from "../exec/limits.ts";
import { createCommandRunner } from "../exec/runner.ts";
import type { CommandRunner } from "../exec/types.ts";
import { type ModelCatalog, createModelCatalog } from "../llm/catalog.ts";
import { createModelClient } from "../llm/client.ts";
import { createTransport, fetchThrough } from "../llm/transport.ts";
import { createInteractionSeam } from "../interaction/seam.ts";
import type { InteractionProvider } from "../interaction/types.ts";
import type { ModelInfo } from "../llm/types.ts";
import type { Logger } from "../log.ts";
import { createSessionStore } from "../session/store.ts";
import type { SessionStore } from "../session/types.ts";
import { version } from "../../package.json";
import { createCoreTools } from "../tools/core-tools.ts";
import { createToolRegistry } from "../tools/registry.ts";
import { createBackgroundJobs } from "../tools/background/jobs.ts";
import { statusLine } from "../tools/background/tools.ts";
import { type SecretPlaces, secretPlacesOf } from "../file-safety/credential-paths.ts";
import { type Config, currentApiKey } from "./config.ts";
import { credentialScopeOf, ensureOwnConfigDir, protectedConfigPaths } from "./guarded-paths.ts";
import { sessionDefaults } from "./session-defaults.ts";
import { mcpSessionTools } from "./session-tools.ts";

export interface Composition extends AsyncDisposable {
  readonly service: AgentService;
  readonly store: SessionStore;
  readonly runner: CommandRunner;
  /** The proxy of sandboxed commands (nothing runs until the first one). */
  readonly network: NetworkService;
  readonly models: () => readonly ModelInfo[];
  readonly defaults: SessionSettings;
  /** What dsh never reads on its own: the file tools' and the mentions' one set. */
  readonly secrets: SecretPlaces;
  /** The saved "always allow" rules. */
  readonly rules: RuleBook;
}

export interface ComposeOptions {
  readonly config: Config;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** Who can answer approval requests, in order. None: every request is denied. */
  readonly answerers: readonly ApprovalAnswerer[];
  /** Who can answer structured questions, in order. None: questions are not offered. */
  readonly questioners?: readonly InteractionProvider[];
  /**
   * The model catalog of `config`, when the caller built it already (`dsh acp` answers
   * `initialize` with it before composing); built here otherwise.
   */
  readonly catalog?: ModelCatalog;
  /** The session store, when the caller made it already (`dsh acp` makes new sessions' logs before composing). */
  readonly store?: SessionStore;
}

export function compose(options: ComposeOptions): Composition {
  const { config, logger } = options;
  const store = options.store ?? createSessionStore({ home: config.home, logger });
  const catalog =
    options.catalog ??
    createModelCatalog({ defaultModel: config.model, userModels: config.models });
  const apiKey = () => currentApiKey(config, options.env);
  // The model endpoint, DeepSeek's web APIs and SearXNG: one proxy and CA setup for all.
  const transport = createTransport(options.env);
  const outbound = fetchThrough(transport);
  const client = createModelClient({
    baseUrl: config.baseUrl,
    apiKey,
    logger,
    streamTimeoutMs: config.streamTimeoutMs,
    fetch: outbound,
  });
  const home = options.env.HOME || homedir();
  // One list for the sandbox and the file tools.
  const protectedDirs = protectedConfigPaths(config, options.env);
  ensureOwnConfigDir(config, options.env);
  const credentials = credentialScopeOf(home, config, options.env);
  // What the file tools and the instruction files never read; one set for both.
  const secrets = secretPlacesOf(credentials);
  const rules = createRuleBook({ home: config.home, logger });
  const network = networkOf(config, rules, logger);
  const runner = createCommandRunner({
    env: options.env,
    sandbox: config.sandbox,
    home,
    credentials,
    stateDir: config.home,
    protectedDirs,
    envConfig: { include: config.env.include, allowSecret: config.env.allow_secret },
    commandLimits: commandLimits(config.limits, totalmem()),
    walkLimits: walkLimits(config.limits),
    logger,
    network,
  });
  // A session's background commands end with it, and then its network namespace goes.
  const jobs = createBackgroundJobs({ sessionEnded: (id) => network.endScope(id) });
  const approval = createApprovalSeam({
    answerers: options.answerers,
    rules,
    home,
    onError: (error, request) =>
      logger.warn("an approval answerer failed; denied", { kind: request.kind, error }),
  });
  const interaction = createInteractionSeam({
    providers: options.questioners ?? [],
    onError: (error) => logger.warn("a question provider failed; treated as declined", { error }),
  });
  const tools = createToolRegistry(
    // dsh's configuration is never written by the model, whatever the preset; its state
    // (session logs, whose settings events a reload trusts) is never read or written.
    createCoreTools({
      runner,
      interaction,
      secrets,
      protectedDirs,
      jobs,
      web: {
        settings: config.web,
        network: network.access,
        apiKey,
        fetch: outbound,
        userAgent: `dsh/${version} (+https://github.com/dsh-agent/dsh)`,
        // The extra CAs the model endpoint's requests trust, not its proxy (see direct-fetch.ts).
        ca: async () => (await transport.options("https://web-fetch.invalid/")).tls?.ca,
      },
    }),
  );
  const defaults = sessionDefaults(config, catalog);
  const service = createAgentService({
    store,
    client,
    catalog,
    tools,
    approval,
    defaults,
    maxRequestsPerTurn: config.maxTurnRequests,
    maxSubagents: config.maxSubagents,
    compactAt: config.compactAt,
    configDir: config.configDir,
    home,
    reservedCommands: reservedCommandNames(),
    checkpoints: {
      stateDir: config.home,
      settings: config.checkpoints,
      path: options.env.PATH,
    },
    secrets,
    platform: `${process.platform} ${process.arch}`,
    now: () => new Date(),
    logger,
    sessionClosed: (id) => jobs.endSession(id),
    background: (id) =>
      jobs.list(id).map((job) => ({
        id: job.id,
        command: job.command,
        status: statusLine(job.status).slice("status: ".length),
      })),
    sessionTools: mcpSessionTools(
      {
        servers: config.mcp.servers,
        env: options.env,
        home,
        include: config.env.include,
        allowSecret: config.env.allow_secret,
        startupTimeoutMs: config.mcp.startupTimeoutMs,
        toolTimeoutMs: config.mcp.toolTimeoutMs,
      },
      logger,
    ),
  });
  return {
    service,
    store,
    runner,
    network,
    models: () => catalog.models(),
    defaults,
    secrets,
    rules,
    async [Symbol.asyncDispose]() {
      await jobs[Symbol.asyncDispose]();
      await runner[Symbol.asyncDispose]();
      await network[Symbol.asyncDispose]();
    },
  };
}

/** The network service of sandboxed commands, with the host rules the user saved per project. */
function networkOf(config: Config, rules: RuleBook, logger: Logger): NetworkService {
  return createNetworkService({
    config: config.network,
    configPath: config.configPath,
    savedHosts: (project) =>
      rules
        .list()
        .flatMap(({ project: owner, rule }) =>
          owner === project && rule?.type === "host" ? [hostRuleText(rule)] : [],
        ),
    logger,
    holders: () => import("../exec/network-holder.ts").then((m) => m.openHolders(logger)),
  });
}
