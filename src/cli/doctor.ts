/** `dsh doctor`: checks the setup and says how to fix each problem. Exit 1 if any check fails. */
import { accessSync, constants, existsSync, mkdirSync } from "node:fs";
import { type Config, loadConfig } from "../app/config.ts";
import { LOCAL_SERVERS, findLocalServers } from "../app/local-servers.ts";
import { errorMessage } from "../errors.ts";
import { createCommandRunner } from "../exec/runner.ts";
import { createModelCatalog } from "../llm/catalog.ts";
import { describeFetchFailure } from "../llm/http-errors.ts";
import { silentLogger } from "../log.ts";
import { mcpServerChecks } from "./doctor-mcp.ts";
import type { CliIo } from "./io.ts";

interface Check {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

export async function runDoctor(io: CliIo): Promise<number> {
  let config: Config;
  try {
    config = loadConfig(io.env);
  } catch (error) {
    io.stdout.write(
      `✗ config: ${errorMessage(error)}\n  fix the file or point DSH_CONFIG elsewhere\n`,
    );
    return 1;
  }
  const checks: Check[] = [
    {
      name: "config",
      ok: true,
      detail: existsSync(config.configPath)
        ? config.configPath
        : `${config.configPath} (absent; defaults in use)`,
    },
    apiKeyCheck(config),
    await endpointCheck(config),
    modelCheck(config),
    await sandboxCheck(io, config),
    stateDirCheck(config),
    await localServersCheck(),
    ...(await mcpServerChecks(io, config)),
  ];
  for (const check of checks)
    io.stdout.write(`${check.ok ? "✓" : "✗"} ${check.name}: ${check.detail}\n`);
  return checks.every((check) => check.ok) ? 0 : 1;
}

/** What answers on the usual local ports; informational, never a failure. */
async function localServersCheck(): Promise<Check> {
  const found = await findLocalServers();
  const detail =
    found.length === 0
      ? `none on ${LOCAL_SERVERS.map((s) => s.port).join(", ")} (Ollama, LM Studio, llama.cpp, vLLM)`
      : found.map((s) => `${s.name} at ${s.baseUrl} (${s.models.length} models)`).join("; ");
  return { name: "local model servers", ok: true, detail };
}

/** Where the key comes from, never the key itself. */
function apiKeyCheck(config: Config): Check {
  switch (config.apiKeySource) {
    case "env":
      return {
        name: "api key",
        ok: true,
        detail: "from the environment (DSH_API_KEY or DEEPSEEK_API_KEY)",
      };
    case "stored":
      return { name: "api key", ok: true, detail: "stored by dsh login" };
    case "none":
      return { name: "api key", ok: false, detail: "missing: run dsh login, or set DSH_API_KEY" };
  }
}

async function endpointCheck(config: Config): Promise<Check> {
  const url = `${config.baseUrl.replace(/\/+$/, "")}/models`;
  try {
    const response = await fetch(url, {
      headers: config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {},
      signal: AbortSignal.timeout(5000),
    });
    if (response.status === 401)
      return { name: "endpoint", ok: false, detail: `${url} rejected the API key (401)` };
    return { name: "endpoint", ok: true, detail: `${config.baseUrl} answered ${response.status}` };
  } catch (error) {
    return {
      name: "endpoint",
      ok: false,
      detail: `${config.baseUrl} unreachable: ${describeFetchFailure(error)}`,
    };
  }
}

function modelCheck(config: Config): Check {
  const catalog = createModelCatalog({ defaultModel: config.model, userModels: config.models });
  const known = createModelCatalog({ userModels: config.models })
    .models()
    .some((m) => m.id === catalog.default.id);
  return {
    name: "model",
    ok: true,
    detail: known
      ? catalog.default.id
      : `${catalog.default.id} (not in the catalog; used as-is with ${config.baseUrl})`,
  };
}

async function sandboxCheck(io: CliIo, config: Config): Promise<Check> {
  await using runner = createCommandRunner({
    env: io.env,
    sandbox: config.sandbox,
    home: io.env.HOME ?? "/",
    stateDir: config.home,
    envConfig: { include: config.env.include, allowSecret: config.env.allow_secret },
    logger: silentLogger,
  });
  const status = await runner.sandbox();
  if (status.ok) return { name: "sandbox", ok: true, detail: `${status.backend} works` };
  const fix = status.fix ? `; fix: ${status.fix}` : "";
  return { name: "sandbox", ok: false, detail: `${status.reason ?? "no backend works"}${fix}` };
}

function stateDirCheck(config: Config): Check {
  try {
    mkdirSync(config.home, { recursive: true, mode: 0o700 });
    accessSync(config.home, constants.W_OK);
    return { name: "state dir", ok: true, detail: `${config.home} writable` };
  } catch (error) {
    return {
      name: "state dir",
      ok: false,
      detail: `${config.home}: ${errorMessage(error)}; set DSH_HOME to a writable dir`,
    };
  }
}
