/**
 * `dsh acp`: composes the agent with the ACP approval answerer and serves one connection on
 * stdin/stdout. stdout carries nothing but JSON-RPC; logs go to stderr or `DSH_LOG`.
 */
import { Writable } from "node:stream";
import { createAcpApprovalAnswerer } from "../acp/approval.ts";
import { createAcpQuestioner } from "../acp/elicitation.ts";
import { runAcpServer } from "../acp/server.ts";
import { createLogger } from "../log.ts";
import type { AgentService } from "../agent/types.ts";
import { type Composition, compose } from "./compose.ts";
import { createModelCatalog } from "../llm/catalog.ts";
import { needsApiKey } from "../llm/local-endpoint.ts";
import { currentApiKey, loadConfig } from "./config.ts";

/** Serves until stdin ends or SIGINT/SIGTERM/SIGHUP; resolves with the exit code. */
export async function runAcp(
  env: Readonly<Record<string, string | undefined>>,
  version: string,
): Promise<number> {
  const config = loadConfig(env);
  const logger = createLogger({ destination: config.log, level: "info" });
  const approvals = createAcpApprovalAnswerer();
  const questions = createAcpQuestioner({ logger });
  // Composed at the first session request, so `initialize` is answered without waiting for it.
  let composition: Composition | undefined;
  const composed = () => {
    composition ??= compose({
      config,
      env,
      logger,
      answerers: [approvals],
      questioners: [questions],
    });
    return composition;
  };
  const service: AgentService = {
    create: (options) => composed().service.create(options),
    resume: (id, options) => composed().service.resume(id, options),
    list: () => composed().service.list(),
  };

  // A default model on this machine (Ollama, LM Studio, ...) needs no key, so no sign-in.
  const defaultModel = createModelCatalog({
    defaultModel: config.model,
    userModels: config.models,
  }).default;
  const defaultEndpoint = defaultModel.baseUrl ?? config.baseUrl;

  const shutdown = new AbortController();
  const stop = () => shutdown.abort();
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, stop);
  // A Node stream, not a FileSink: it reports a client that stopped reading (EPIPE) even when
  // the pipe was full, where a pending FileSink flush waited forever.
  const output: WritableStream<Uint8Array> = Writable.toWeb(process.stdout); // stdout-ok: the ACP transport
  await runAcpServer({
    service,
    models: () => composed().models(),
    version,
    logger,
    hasApiKey: () => currentApiKey(config, env) !== undefined || !needsApiKey(defaultEndpoint),
    input: Bun.stdin.stream(),
    output,
    approvals,
    questions,
    signal: shutdown.signal,
  });
  await composition?.[Symbol.asyncDispose]();
  logger.info("acp connection closed");
  return 0;
}
