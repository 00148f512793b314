/**
 * `dsh doctor`: runs each check of the setup against the composed parts (the same runner,
 * store and catalog the other commands use, and the real endpoint) and prints them, each
 * failure with its fix. Exit 1 if any check fails. A new check is one more entry of `checks`.
 */
import { accessSync, constants, existsSync, mkdirSync } from "node:fs";
import { type Check, printChecks } from "../cli/doctor.ts";
import { readStoredKeyRecord } from "../auth/key-store.ts";
import { errorMessage } from "../errors.ts";
import type { CommandRunner } from "../exec/types.ts";
import { type EndpointFinding, probeEndpoint } from "../llm/endpoint-probe.ts";
import { type Transport, createTransport, fetchThrough } from "../llm/transport.ts";
import { silentLogger } from "../log.ts";
import { compose } from "./compose.ts";
import { mcpServerChecks } from "./doctor-mcp.ts";
import { LOCAL_SERVERS, findLocalServers } from "./local-servers.ts";
import { type Config, DEFAULT_BASE_URL, loadConfig } from "./config.ts";
import type { ProcessIo } from "./process-io.ts";

/** How long the endpoint may take to answer each probe. */
const PROBE_TIMEOUT_MS = 10_000;

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
  const model = composition.defaults.model;
  const baseUrl = composition.models().find((info) => info.id === model)?.baseUrl ?? config.baseUrl;
  const transport = createTransport(io.env);
  const finding = await probeEndpoint({
    baseUrl,
    apiKey: config.apiKey,
    model,
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    fetch: fetchThrough(transport),
  });
  const checks: Check[] = [
    {
      name: "config",
      ok: true,
      detail: existsSync(config.configPath)
        ? config.configPath
        : `${config.configPath} (absent; defaults in use)`,
    },
    apiKeyCheck(config, baseUrl),
    endpointCheck(baseUrl, finding, config.apiKey !== undefined),
    proxyCheck(baseUrl, transport),
    modelCheck(model, baseUrl, finding),
    await sandboxCheck(composition.runner),
    stateDirCheck(config),
    await localServersCheck(),
    ...(await mcpServerChecks(io, config)),
  ];
  return printChecks(io, checks);
}

/** Where the key comes from, never the key itself; a stored key checked against another endpoint fails. */
function apiKeyCheck(config: Config, baseUrl: string): Check {
  switch (config.apiKeySource) {
    case "env":
      return {
        name: "api key",
        ok: true,
        detail: "from the environment (DSH_API_KEY or DEEPSEEK_API_KEY)",
      };
    case "stored": {
      const checkedAt = readStoredKeyRecord(config.home)?.baseUrl;
      if (checkedAt === undefined || sameEndpoint(checkedAt, baseUrl))
        return { name: "api key", ok: true, detail: "stored by dsh login" };
      return {
        name: "api key",
        ok: true,
        warning: true,
        detail: `stored by dsh login for ${checkedAt}, but the endpoint is now ${baseUrl}: run dsh login again for this endpoint, or set DSH_BASE_URL back`,
      };
    }
    case "none":
      return { name: "api key", ok: false, detail: "missing: run dsh login, or set DSH_API_KEY" };
    default: {
      const unhandled: never = config.apiKeySource;
      return unhandled;
    }
  }
}

function sameEndpoint(a: string, b: string): boolean {
  return a.replace(/\/+$/, "") === b.replace(/\/+$/, "");
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

function endpointCheck(baseUrl: string, finding: EndpointFinding, keySet: boolean): Check {
  const name = "endpoint";
  const urlFix = `DSH_BASE_URL should be the URL that /chat/completions hangs off (for DeepSeek ${DEFAULT_BASE_URL})`;
  switch (finding.kind) {
    case "ok":
    case "unknown_model":
      return { name, ok: true, detail: `${baseUrl} answers` };
    case "unreachable":
      return {
        name,
        ok: false,
        detail: `${baseUrl} unreachable: ${finding.reason}; check DSH_BASE_URL and the network`,
      };
    case "key_rejected":
      return keySet
        ? {
            name,
            ok: false,
            detail: `${baseUrl} rejected the API key (HTTP ${finding.status}${finding.detail ? `: ${finding.detail}` : ""}); run \`dsh login\` to store a new one, or set DSH_API_KEY`,
          }
        : { name, ok: false, detail: `${baseUrl} wants an API key (HTTP ${finding.status})` };
    case "not_an_api":
      return {
        name,
        ok: false,
        detail: `${baseUrl} answered HTTP ${finding.status} with ${finding.what}: not an OpenAI-compatible API; ${urlFix}`,
      };
    case "failed":
      return {
        name,
        ok: false,
        detail: `${baseUrl} failed a one-token request (HTTP ${finding.status}${finding.detail ? `: ${finding.detail}` : ""})`,
      };
    default: {
      const unhandled: never = finding;
      return unhandled;
    }
  }
}

function modelCheck(model: string, baseUrl: string, finding: EndpointFinding): Check {
  const name = "model";
  if (finding.kind === "ok") return { name, ok: true, detail: `${model} (served by ${baseUrl})` };
  if (finding.kind !== "unknown_model")
    return { name, ok: false, detail: `${model}: not checked, the endpoint did not answer` };
  const listed =
    finding.models === undefined || finding.models.length === 0
      ? ""
      : `; it lists ${finding.models.slice(0, 8).join(", ")}${finding.models.length > 8 ? ", …" : ""}`;
  return {
    name,
    ok: false,
    detail: `${model}: the endpoint rejected it (${finding.detail})${listed}; pick one with DSH_MODEL or \`model\` in the config file`,
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

/** Which proxy the model client goes through (or none), and the extra CAs it trusts. */
function proxyCheck(baseUrl: string, transport: Transport): Check {
  const proxy = transport.proxyFor(baseUrl);
  const route =
    proxy === undefined
      ? "direct (no HTTPS_PROXY or HTTP_PROXY applies to the endpoint)"
      : `through ${redacted(proxy.url)} (${proxy.variable})`;
  const files = transport.caFiles();
  const broken = files.filter((file) => file.error !== undefined);
  const cas =
    files.length === 0
      ? ""
      : `; extra CA certificates: ${files.map((file) => `${file.path} (${file.variable})`).join(", ")}`;
  if (broken.length > 0) {
    return {
      name: "model proxy",
      ok: false,
      detail: `${route}${cas}; cannot read ${broken.map((file) => `${file.path}: ${file.error}`).join("; ")}: fix the path or unset the variable`,
    };
  }
  return { name: "model proxy", ok: true, detail: `${route}${cas}` };
}

/** A proxy URL without its password. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.href.replace(/\/$/, "");
  } catch {
    return url;
  }
}
