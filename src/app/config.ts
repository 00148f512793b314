/**
 * Configuration: the TOML file, the environment and the flags, merged with the precedence
 * flags > environment > config file > defaults. The only place that knows the env var names.
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import * as v from "valibot";
import { errorCode } from "../error-code.ts";
import { DshError } from "../errors.ts";
import { nodeFs, nodeOs } from "../lazy-builtins.ts";
import { configIssueMessage, deepestIssue, tomlSyntaxMessage } from "./config-errors.ts";
import { readStoredKey } from "../auth/key-store.ts";
import { EnvConfig } from "../exec/env.ts";
import { LimitsConfig } from "../exec/limits.ts";
import {
  type CheckpointSettings,
  CheckpointsConfig,
  checkpointSettingsOf,
} from "../checkpoints/config.ts";
import { UserModelConfig } from "../llm/catalog.ts";
import { McpServerTables, serversOf } from "../mcp/config.ts";
import { NetworkConfig } from "../network/config.ts";
import { WebConfig, type WebSettings, webSettingsOf } from "../web/config.ts";
import type { McpServerSpec } from "../mcp/types.ts";
import { lazySchema } from "../lazy-schema.ts";
import { ApprovalPolicy, type Knobs, PRESETS, PresetId, SandboxMode } from "../permission/knobs.ts";
import { choiceSchema } from "../settings/schema.ts";
import { EFFORT, type Effort, SANDBOX, type SandboxPreference } from "../settings/table.ts";

export const DEFAULT_BASE_URL = "https://api.deepseek.com";
/** `compact_at` when the config file does not set it. */
export const DEFAULT_COMPACT_AT = 0.8;

/**
 * The config file's shape. Unknown keys are errors, so a typo never silently does nothing.
 * Built at the first parse: start-up with no config file builds none of it.
 */
export const ConfigFile = lazySchema(() =>
  v.strictObject({
    model: v.optional(v.string()),
    base_url: v.optional(v.pipe(v.string(), v.url())),
    permission: v.optional(PresetId),
    /** Refines the file's preset; knobs that match no preset show as `custom`. */
    sandbox_mode: v.optional(SandboxMode),
    approval_policy: v.optional(ApprovalPolicy),
    sandbox: v.optional(choiceSchema(SANDBOX)),
    effort: v.optional(choiceSchema(EFFORT)),
    log: v.optional(v.string()),
    max_turn_requests: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000)),
    ),
    /** Subagents (`task` calls) one session runs at once; the rest wait. */
    max_subagents: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(32))),
    /** Seconds of silence from the model endpoint after which a step gives up. */
    stream_timeout: v.optional(v.pipe(v.number(), v.minValue(0.1), v.maxValue(86_400))),
    models: v.optional(v.array(UserModelConfig)),
    env: v.optional(EnvConfig),
    mcp_servers: v.optional(McpServerTables),
    /** How long an MCP server may take to start before the first prompt goes on without it. */
    mcp_startup_timeout_ms: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(600_000)),
    ),
    /** How long one MCP tool call may take. */
    mcp_tool_timeout_ms: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(3_600_000)),
    ),
    /** Compact the context when a request would pass this share of the model's window. */
    compact_at: v.optional(
      v.pipe(v.number(), v.gtValue(0, "compact_at must be above 0"), v.maxValue(1)),
    ),
    limits: v.optional(LimitsConfig),
    checkpoints: v.optional(CheckpointsConfig),
    network: v.optional(NetworkConfig),
    web: v.optional(WebConfig),
  }),
);
export type ConfigFile = v.InferOutput<typeof ConfigFile>;

export interface Config {
  readonly home: string;
  readonly configPath: string;
  /** Where the user's AGENTS.md may live (the config file's directory). */
  readonly configDir: string;
  readonly baseUrl: string;
  /**
   * `DSH_API_KEY` (or `DEEPSEEK_API_KEY`), else the key `dsh login` stored. Never logged, never
   * passed to a child process.
   */
  readonly apiKey: string | undefined;
  /** Where `apiKey` came from. */
  readonly apiKeySource: "env" | "stored" | "none";
  /** The default model id; undefined means the catalog's default. */
  readonly model: string | undefined;
  readonly effort: Effort;
  /** The preset named by `--permission`, `DSH_PERMISSION` or the file (else the default). */
  readonly permission: PresetId;
  /**
   * The permission knobs of new sessions: those of `permission`, refined by the file's
   * `sandbox_mode` / `approval_policy` unless a flag or the environment named the preset.
   */
  readonly knobs: Knobs;
  readonly sandbox: SandboxPreference;
  readonly log: string;
  readonly maxTurnRequests: number;
  /** `max_subagents`: subagents one session runs at once. */
  readonly maxSubagents: number;
  /** `DSH_STREAM_TIMEOUT` / `stream_timeout`, in ms: the longest wait on a silent endpoint. */
  readonly streamTimeoutMs: number;
  readonly models: readonly v.InferOutput<typeof UserModelConfig>[];
  readonly env: v.InferOutput<typeof EnvConfig>;
  /** The config file's enabled MCP servers and their time limits. */
  readonly mcp: {
    readonly servers: readonly McpServerSpec[];
    readonly startupTimeoutMs: number;
    readonly toolTimeoutMs: number;
  };
  /** The share of a model's window a request may fill before the context is compacted. */
  readonly compactAt: number;
  /** The `[limits]` table: resource bounds of sandboxed commands (defaults where absent). */
  readonly limits: LimitsConfig;
  /** The `[checkpoints]` table: whether turns are checkpointed, and the store's size limit. */
  readonly checkpoints: CheckpointSettings;
  /** The `[network]` table: hosts sandboxed commands may reach through the proxy, and may not. */
  readonly network: NetworkConfig;
  /** The `[web]` table: web_search's backend, web_fetch's mode, their time limit. */
  readonly web: WebSettings;
}

export interface ConfigFlags {
  readonly model?: string;
  readonly permission?: string;
}

/** A config problem the user must fix; rendered as one line. */
export class ConfigError extends DshError<"config"> {
  constructor(message: string) {
    super("config", message);
  }
}

/** Reads the config file and the environment; ConfigError for anything the user must fix. */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>>,
  flags: ConfigFlags = {},
): Config {
  const { home, configPath, explicit } = placesOf(env);
  return configOf(env, flags, home, configPath, readConfigFile(configPath, explicit));
}

/**
 * `loadConfig`, reading the file through Bun's own file API: `dsh acp` answers `initialize`
 * without linking `node:fs` (loaded later, with the session store).
 */
export async function loadConfigAsync(
  env: Readonly<Record<string, string | undefined>>,
  flags: ConfigFlags = {},
): Promise<Config> {
  const { home, configPath, explicit } = placesOf(env);
  const text = await readConfigTextAsync(configPath, explicit);
  const file = text === undefined ? {} : parseConfigText(configPath, text);
  return configOf(env, flags, home, configPath, file);
}

/** The user's home and the config file's path (`DSH_CONFIG` makes it `explicit`). */
function placesOf(env: Readonly<Record<string, string | undefined>>) {
  const home = env.HOME || nodeOs().homedir();
  const configPath =
    nonEmpty(env.DSH_CONFIG) ??
    join(nonEmpty(env.XDG_CONFIG_HOME) ?? join(home, ".config"), "dsh", "config.toml");
  return { home, configPath, explicit: nonEmpty(env.DSH_CONFIG) !== undefined };
}

function configOf(
  env: Readonly<Record<string, string | undefined>>,
  flags: ConfigFlags,
  home: string,
  configPath: string,
  file: ConfigFile,
): Config {
  const dataHome = nonEmpty(env.XDG_DATA_HOME) ?? join(home, ".local", "share");

  const named = flags.permission ?? nonEmpty(env.DSH_PERMISSION);
  const permission = named ?? file.permission ?? "workspace-write";
  if (!v.is(PresetId, permission)) {
    throw new ConfigError(
      `unknown permission preset "${permission}" (${PresetId.options.join(", ")})`,
    );
  }
  // A preset named by a flag or the environment wins whole over the file's knobs.
  const knobs: Knobs =
    named === undefined
      ? {
          sandboxMode: file.sandbox_mode ?? PRESETS[permission].sandboxMode,
          approvalPolicy: file.approval_policy ?? PRESETS[permission].approvalPolicy,
        }
      : PRESETS[permission];
  const sandbox = nonEmpty(env.DSH_SANDBOX) ?? file.sandbox ?? SANDBOX.default;
  if (!SANDBOX.has(sandbox)) {
    throw new ConfigError(SANDBOX.unknown(JSON.stringify(sandbox), "DSH_SANDBOX"));
  }
  const dshHome = nonEmpty(env.DSH_HOME) ?? join(dataHome, "dsh");
  const baseUrl = baseUrlOf(env.DSH_BASE_URL, file.base_url, configPath);
  return {
    home: resolve(dshHome),
    configPath,
    configDir: dirname(configPath),
    baseUrl,
    ...apiKeyOf(env, resolve(dshHome)),
    model: flags.model ?? nonEmpty(env.DSH_MODEL) ?? file.model,
    effort: file.effort ?? EFFORT.default,
    permission,
    knobs,
    sandbox,
    log: logDestination(nonEmpty(env.DSH_LOG) ?? file.log ?? "stderr"),
    maxTurnRequests: file.max_turn_requests ?? 100,
    maxSubagents: file.max_subagents ?? 4,
    streamTimeoutMs: streamTimeoutMs(nonEmpty(env.DSH_STREAM_TIMEOUT), file.stream_timeout),
    models: file.models ?? [],
    env: file.env ?? { include: [], allow_secret: [] },
    mcp: {
      servers: serversOf(file.mcp_servers ?? {}),
      startupTimeoutMs: file.mcp_startup_timeout_ms ?? 10_000,
      toolTimeoutMs: file.mcp_tool_timeout_ms ?? 120_000,
    },
    compactAt: file.compact_at ?? DEFAULT_COMPACT_AT,
    limits: file.limits ?? {},
    checkpoints: checkpointSettingsOf(file.checkpoints),
    network: file.network ?? { allow: [], deny: [] },
    web: webSettingsOf(file.web, baseUrl),
  };
}

function apiKeyOf(
  env: Readonly<Record<string, string | undefined>>,
  home: string,
): Pick<Config, "apiKey" | "apiKeySource"> {
  const fromEnv = nonEmpty(env.DSH_API_KEY) ?? nonEmpty(env.DEEPSEEK_API_KEY);
  if (fromEnv !== undefined) return { apiKey: fromEnv, apiKeySource: "env" };
  const stored = readStoredKey(home);
  return stored === undefined
    ? { apiKey: undefined, apiKeySource: "none" }
    : { apiKey: stored, apiKeySource: "stored" };
}

/** The API key now: the environment's, else the stored one (which `dsh login` may have just written). */
export function currentApiKey(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  return apiKeyOf(env, config.home).apiKey;
}

function readConfigFile(path: string, explicit: boolean): ConfigFile {
  const { existsSync, readFileSync, statSync } = nodeFs();
  if (!existsSync(path)) {
    if (explicit) throw notFound(path);
    return {};
  }
  let text: string;
  try {
    if (statSync(path).isDirectory()) throw isDirectory(path);
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw unreadable(path, error);
  }
  return parseConfigText(path, text);
}

/** The file's text, or undefined when there is none (an error when `DSH_CONFIG` named it). */
async function readConfigTextAsync(path: string, explicit: boolean): Promise<string | undefined> {
  try {
    return await Bun.file(path).text();
  } catch (error) {
    switch (errorCode(error)) {
      case "ENOENT":
      case "ENOTDIR":
        if (explicit) throw notFound(path);
        return undefined;
      case "EISDIR":
        throw isDirectory(path);
      default:
        throw unreadable(path, error);
    }
  }
}

function notFound(path: string): ConfigError {
  return new ConfigError(`config file not found: ${path} (from DSH_CONFIG)`);
}

function isDirectory(path: string): ConfigError {
  return new ConfigError(`${path} is a directory, not a config file`);
}

function unreadable(path: string, error: unknown): ConfigError {
  return new ConfigError(
    `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`,
  );
}

function parseConfigText(path: string, text: string): ConfigFile {
  let data: unknown;
  try {
    data = Bun.TOML.parse(text);
  } catch (error) {
    throw new ConfigError(tomlSyntaxMessage(path, text, error));
  }
  // A file that sets nothing is valid as it is; start-up then builds no schema.
  if (isEmptyTable(data)) return {};
  const parsed = v.safeParse(ConfigFile, data);
  if (!parsed.success) {
    throw new ConfigError(configIssueMessage(path, text, ConfigFile, firstIssue(parsed.issues)));
  }
  return parsed.output;
}

/** The issue to report: an unknown key (a typo) before anything it may have caused. */
function firstIssue(issues: readonly [v.BaseIssue<unknown>, ...v.BaseIssue<unknown>[]]) {
  const deepest = issues.map(deepestIssue);
  return deepest.find((issue) => issue.expected === "never") ?? deepest[0] ?? issues[0];
}

function isEmptyTable(data: unknown): boolean {
  return typeof data === "object" && data !== null && Object.keys(data).length === 0;
}

/** The stream timeout from the environment (seconds) or the file, else 120 s. */
function streamTimeoutMs(fromEnv: string | undefined, fromFile: number | undefined): number {
  if (fromEnv === undefined) return (fromFile ?? 120) * 1000;
  const value = Number(fromEnv);
  if (!Number.isFinite(value) || value < 0.1 || value > 86_400) {
    throw new ConfigError(
      `DSH_STREAM_TIMEOUT must be a number of seconds from 0.1 to 86400, not "${fromEnv}"`,
    );
  }
  return value * 1000;
}

/**
 * The endpoint's base URL, checked at start: a value that is no http(s) URL would otherwise
 * surface as a network failure retried three times at the first request.
 */
function baseUrlOf(fromEnv: string | undefined, fromFile: string | undefined, path: string) {
  const env = nonEmpty(fromEnv);
  const value = env ?? fromFile ?? DEFAULT_BASE_URL;
  if (!isHttpUrl(value)) {
    const where = env === undefined ? `${path}: base_url` : "DSH_BASE_URL";
    throw new ConfigError(
      `${where} "${value}" is not an http(s) URL; set it to the endpoint's base, such as ${DEFAULT_BASE_URL}`,
    );
  }
  return value;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

function logDestination(value: string): string {
  if (value === "stderr") return value;
  return isAbsolute(value) ? value : resolve(value);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
