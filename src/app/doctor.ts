/**
 * `dsh doctor`: runs each check of the setup against the composed parts (the same runner, store
 * and catalog the other commands use) and prints them. Exit 1 if any check fails.
 */
import { accessSync, constants, existsSync, mkdirSync } from "node:fs";
import { type Check, printChecks } from "../cli/doctor.ts";
import { errorMessage } from "../errors.ts";
import type { CommandRunner } from "../exec/types.ts";
import { createModelCatalog } from "../llm/catalog.ts";
import { silentLogger } from "../log.ts";
import { compose } from "./compose.ts";
import { type Config, loadConfig } from "./config.ts";
import type { ProcessIo } from "./process-io.ts";

/** Prints every check; resolves with 0 when all pass, else 1. */
export async function runDoctor(io: ProcessIo): Promise<number> {
  let config: Config;
  try {
    config = loadConfig(io.env);
  } catch (error) {
    return printChecks(io, [
      {
        name: "config",
        ok: false,
        detail: `${errorMessage(error)}; fix the file or point DSH_CONFIG elsewhere`,
      },
    ]);
  }
  await using composition = compose({ config, env: io.env, logger: silentLogger, answerers: [] });
  const checks: Check[] = [
    {
      name: "config",
      ok: true,
      detail: existsSync(config.configPath)
        ? config.configPath
        : `${config.configPath} (absent; defaults in use)`,
    },
    config.apiKey
      ? { name: "api key", ok: true, detail: "set" }
      : { name: "api key", ok: false, detail: "missing: set DSH_API_KEY (or DEEPSEEK_API_KEY)" },
    await endpointCheck(config),
    modelCheck(config),
    await sandboxCheck(composition.runner),
    stateDirCheck(config),
  ];
  return printChecks(io, checks);
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
      detail: `${config.baseUrl} unreachable: ${errorMessage(error)}`,
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

async function sandboxCheck(runner: CommandRunner): Promise<Check> {
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
