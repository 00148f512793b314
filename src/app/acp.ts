/**
 * `dsh acp`: composes the agent with the ACP approval answerer and serves one connection on
 * stdin/stdout. stdout carries nothing but JSON-RPC; logs go to stderr or `DSH_LOG`.
 */
import { createAcpApprovalAnswerer } from "../acp/approval.ts";
import { createAcpQuestioner } from "../acp/elicitation.ts";
import { runAcpServer } from "../acp/server.ts";
import { createLogger } from "../log.ts";
import { removeStoredKey } from "../auth/key-store.ts";
import { createLazyAgent } from "./acp-agent.ts";
import { createModelCatalog } from "../llm/catalog.ts";
import { needsApiKey } from "../llm/local-endpoint.ts";
import { currentApiKey, loadConfigAsync } from "./config.ts";
import { acpStdout } from "./acp-stdout.ts";
import { projectRootOf } from "../rules/project.ts";
import { logSettingsOf } from "./log-level.ts";

/** Serves until stdin ends or SIGINT/SIGTERM/SIGHUP; resolves with the exit code. */
export async function runAcp(
  env: Readonly<Record<string, string | undefined>>,
  version: string,
): Promise<number> {
  const config = await loadConfigAsync(env);
  const { destination, level, problem } = logSettingsOf(env, config.log);
  const logger = createLogger({ destination, level });
  if (problem !== undefined) logger.warn(problem);
  // The catalog alone, so `initialize` is answered without composing the agent; the
  // composition takes this one.
  const catalog = createModelCatalog({ defaultModel: config.model, userModels: config.models });
  // A default model on this machine (Ollama, LM Studio, ...) needs no key, so no sign-in.
  const defaultEndpoint = catalog.default.baseUrl ?? config.baseUrl;
  const approvals = createAcpApprovalAnswerer();
  const questions = createAcpQuestioner({ logger });
  const agent = createLazyAgent({
    config,
    env,
    logger,
    answerers: [approvals],
    questioners: [questions],
    catalog,
  });
  const { composed } = agent;

  const shutdown = new AbortController();
  const stop = () => shutdown.abort();
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, stop);
  const served = new AbortController();
  const stdout = acpStdout(served.signal);
  await runAcpServer({
    service: agent.service,
    models: () => catalog.models(),
    sandbox: async () => (await composed()).runner.sandbox(),
    allowedHosts: async (sessionId, cwd) =>
      (await composed()).network.allowedHosts(sessionId, projectRootOf(cwd)),
    version,
    // A session request composes the agent after its answer; without one it is composed soon.
    prepare: agent.prepare,
    images: catalog.models().some((model) => model.vision === true),
    logger,
    hasApiKey: () => currentApiKey(config, env) !== undefined || !needsApiKey(defaultEndpoint),
    logout: () => {
      removeStoredKey(config.home);
    },
    input: Bun.stdin.stream(),
    output: stdout.output,
    outputGone: stdout.readerGone,
    approvals,
    questions,
    signal: shutdown.signal,
  });
  served.abort();
  await agent[Symbol.asyncDispose]();
  logger.info("acp connection closed");
  return 0;
}
