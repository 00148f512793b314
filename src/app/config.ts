/**
 * Configuration: the TOML file, the environment and the flags, merged with the precedence
 * flags > environment > config file > defaults. The only place that knows the env var names.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import * as v from "valibot";
import { DshError } from "../errors.ts";
import { EnvConfig } from "../exec/env.ts";
import { LimitsConfig } from "../exec/limits.ts";
import { UserModelConfig } from "../llm/catalog.ts";
import type { Effort } from "../llm/types.ts";
import { ApprovalPolicy, type Knobs, PRESETS, PresetId, SandboxMode } from "../permission/knobs.ts";

export const DEFAULT_BASE_URL = "https://api.deepseek.com";

const SandboxChoice = v.picklist(["auto", "bwrap", "seatbelt", "none"]);
export type SandboxChoice = v.InferOutput<typeof SandboxChoice>;
const EffortChoice = v.picklist(["off", "low", "high", "max"]);

/** The config file's shape. Unknown keys are errors, so a typo never silently does nothing. */
export const ConfigFile = v.strictObject({
  model: v.optional(v.string()),
  base_url: v.optional(v.pipe(v.string(), v.url())),
  permission: v.optional(PresetId),
  /** Refines the file's preset; knobs that match no preset show as `custom`. */
  sandbox_mode: v.optional(SandboxMode),
  approval_policy: v.optional(ApprovalPolicy),
  sandbox: v.optional(SandboxChoice),
  effort: v.optional(EffortChoice),
  log: v.optional(v.string()),
  max_turn_requests: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000))),
  models: v.optional(v.array(UserModelConfig)),
  env: v.optional(EnvConfig),
  limits: v.optional(LimitsConfig),
});
export type ConfigFile = v.InferOutput<typeof ConfigFile>;

export interface Config {
  readonly home: string;
  readonly configPath: string;
  /** Where the user's AGENTS.md may live (the config file's directory). */
  readonly configDir: string;
  readonly baseUrl: string;
  /** Never logged, never passed to a child process. */
  readonly apiKey: string | undefined;
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
  readonly sandbox: SandboxChoice;
  readonly log: string;
  readonly maxTurnRequests: number;
  readonly models: readonly v.InferOutput<typeof UserModelConfig>[];
  readonly env: v.InferOutput<typeof EnvConfig>;
  /** The `[limits]` table: resource bounds of sandboxed commands (defaults where absent). */
  readonly limits: LimitsConfig;
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

export function loadConfig(
  env: Readonly<Record<string, string | undefined>>,
  flags: ConfigFlags = {},
): Config {
  const home = env.HOME || homedir();
  const configPath =
    nonEmpty(env.DSH_CONFIG) ??
    join(nonEmpty(env.XDG_CONFIG_HOME) ?? join(home, ".config"), "dsh", "config.toml");
  const file = readConfigFile(configPath, nonEmpty(env.DSH_CONFIG) !== undefined);
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
  const sandbox = nonEmpty(env.DSH_SANDBOX) ?? file.sandbox ?? "auto";
  if (!v.is(SandboxChoice, sandbox)) {
    throw new ConfigError(`unknown DSH_SANDBOX "${sandbox}" (auto, bwrap, seatbelt, none)`);
  }
  const dshHome = nonEmpty(env.DSH_HOME) ?? join(dataHome, "dsh");
  return {
    home: resolve(dshHome),
    configPath,
    configDir: dirname(configPath),
    baseUrl: nonEmpty(env.DSH_BASE_URL) ?? file.base_url ?? DEFAULT_BASE_URL,
    apiKey: nonEmpty(env.DSH_API_KEY) ?? nonEmpty(env.DEEPSEEK_API_KEY),
    model: flags.model ?? nonEmpty(env.DSH_MODEL) ?? file.model,
    effort: file.effort ?? "high",
    permission,
    knobs,
    sandbox,
    log: logDestination(nonEmpty(env.DSH_LOG) ?? file.log ?? "stderr"),
    maxTurnRequests: file.max_turn_requests ?? 100,
    models: file.models ?? [],
    env: file.env ?? { include: [], allow_secret: [] },
    limits: file.limits ?? {},
  };
}

function readConfigFile(path: string, explicit: boolean): ConfigFile {
  if (!existsSync(path)) {
    if (explicit) throw new ConfigError(`config file not found: ${path} (from DSH_CONFIG)`);
    return {};
  }
  let text: string;
  try {
    if (statSync(path).isDirectory())
      throw new ConfigError(`${path} is a directory, not a config file`);
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(
      `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  let data: unknown;
  try {
    data = Bun.TOML.parse(text);
  } catch (error) {
    throw new ConfigError(
      `${path}: not valid TOML: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const parsed = v.safeParse(ConfigFile, data);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const where = issue.path?.map((item) => String(item.key)).join(".") ?? "";
    throw new ConfigError(`${path}: ${where ? `${where}: ` : ""}${issue.message}`);
  }
  return parsed.output;
}

function logDestination(value: string): string {
  if (value === "stderr") return value;
  return isAbsolute(value) ? value : resolve(value);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}
