/**
 * The model catalog: DeepSeek's current models as built-in data, the user's `[[models]]`
 * entries from the config file on top, and a default id that may be one the catalog has
 * never heard of (used as-is with generic OpenAI-compatible settings).
 */
import * as v from "valibot";
import { lazySchema } from "../lazy-schema.ts";
import { choiceSchema } from "../settings/schema.ts";
import { REASONING_ECHO, THINKING } from "../settings/table.ts";
import { DEEPSEEK_FLASH_PRICES, DEEPSEEK_PRO_PRICES, type ModelPrices } from "./prices.ts";
import type { ModelInfo } from "./types.ts";

/**
 * One `[[models]]` table of the config file. Unknown keys are errors (a typo must not pass).
 * Built at the first parse, like the config file's schema.
 */
export const UserModelConfig = lazySchema(() => {
  const PositiveInt = v.pipe(v.number(), v.integer(), v.minValue(1));
  const Price = v.pipe(v.number(), v.finite(), v.minValue(0));
  return v.strictObject({
    id: v.pipe(v.string(), v.trim(), v.minLength(1)),
    name: v.optional(v.string()),
    base_url: v.optional(v.pipe(v.string(), v.url())),
    context_window: v.optional(PositiveInt),
    max_output_tokens: v.optional(PositiveInt),
    thinking: v.optional(choiceSchema(THINKING)),
    reasoning_echo: v.optional(choiceSchema(REASONING_ECHO)),
    stream_usage: v.optional(v.boolean()),
    vision: v.optional(v.boolean()),
    /** `prices = { cache_hit, cache_miss, output }`: USD per 1M tokens, one table at all hours. */
    prices: v.optional(v.strictObject({ cache_hit: Price, cache_miss: Price, output: Price })),
  });
});
export type UserModelConfig = v.InferOutput<typeof UserModelConfig>;

/**
 * `max_tokens` sent for DeepSeek models. The docs allow 384K of output, but reasoning
 * counts against it and a runaway generation is billed to the end; 64K leaves room for long
 * thinking plus a large file write, and keeps prompt + output well inside the 1M window.
 * A `[[models]]` entry with `max_output_tokens` raises or lowers it.
 */
const DEEPSEEK_MAX_TOKENS = 65_536;
const DEEPSEEK_CONTEXT = 1_048_576;

const deepseek = (
  id: string,
  name: string,
  extra: { vision: boolean; prices: ModelPrices },
): ModelInfo => ({
  id,
  name,
  contextWindow: DEEPSEEK_CONTEXT,
  maxOutputTokens: DEEPSEEK_MAX_TOKENS,
  thinking: "deepseek",
  reasoningEcho: "reasoning_content",
  streamUsage: true,
  ...extra,
});

/** Built-in models, in the order they are offered; the first is the default. */
const BUILT_IN: readonly ModelInfo[] = [
  deepseek("deepseek-flash", "DeepSeek Flash", { vision: true, prices: DEEPSEEK_FLASH_PRICES }),
  deepseek("deepseek-v4-pro", "DeepSeek V4 Pro", { vision: false, prices: DEEPSEEK_PRO_PRICES }),
];

/**
 * Retired ids the provider still serves, and the built-in that serves (and bills) them. They
 * are not offered; one works when configured, and is offered then, under its own id.
 */
const RETIRED: Readonly<Record<string, { readonly servedBy: string; readonly name: string }>> = {
  "deepseek-v4-flash": { servedBy: "deepseek-flash", name: "DeepSeek V4 Flash (retired)" },
};

/**
 * Settings for an id nobody described: a modest window and output cap that most
 * OpenAI-compatible servers accept, and the table's defaults: no thinking switch, reasoning
 * echoed DeepSeek's way (servers that do not know the field ignore it).
 */
function generic(id: string): ModelInfo {
  return {
    id,
    name: id,
    contextWindow: 131_072,
    maxOutputTokens: 16_384,
    thinking: THINKING.default,
    reasoningEcho: REASONING_ECHO.default,
    streamUsage: true,
    vision: false,
  };
}

/** A retired id's settings: those of the model that serves it, under the retired id. */
function retired(id: string): ModelInfo | undefined {
  const entry = RETIRED[id];
  const servedBy = BUILT_IN.find((model) => model.id === entry?.servedBy);
  if (entry === undefined || servedBy === undefined) return undefined;
  return { ...servedBy, id, name: entry.name };
}

export interface ModelCatalogOptions {
  /** The default model id (config, `DSH_MODEL` or `--model`); the first built-in when absent. */
  readonly defaultModel?: string;
  readonly userModels?: readonly UserModelConfig[];
}

export interface ModelCatalog {
  /** Every model offered: built-ins, then user models, then an unknown default id. */
  models(): readonly ModelInfo[];
  /**
   * The model with this id; a retired id gets the settings of the model serving it, an unknown
   * id generic settings (never throws).
   */
  get(id: string): ModelInfo;
  readonly default: ModelInfo;
}

/** Builds the catalog; a user entry with a built-in id overrides that built-in's fields. */
export function createModelCatalog(options: ModelCatalogOptions = {}): ModelCatalog {
  const byId = new Map<string, ModelInfo>(BUILT_IN.map((model) => [model.id, model]));
  const known = (id: string) => byId.get(id) ?? retired(id) ?? generic(id);
  for (const entry of options.userModels ?? []) {
    byId.set(entry.id, applyUserConfig(known(entry.id), entry));
  }
  const defaultId = options.defaultModel?.trim() || BUILT_IN[0]?.id || "deepseek-flash";
  if (!byId.has(defaultId)) byId.set(defaultId, known(defaultId));
  const list = [...byId.values()];
  const get = known;
  return {
    models: () => list,
    get,
    default: get(defaultId),
  };
}

function applyUserConfig(base: ModelInfo, entry: UserModelConfig): ModelInfo {
  const baseUrl = entry.base_url ?? base.baseUrl;
  return {
    id: entry.id,
    name: entry.name ?? base.name,
    ...(baseUrl === undefined ? {} : { baseUrl }),
    contextWindow: entry.context_window ?? base.contextWindow,
    maxOutputTokens: entry.max_output_tokens ?? base.maxOutputTokens,
    thinking: entry.thinking ?? base.thinking,
    reasoningEcho: entry.reasoning_echo ?? base.reasoningEcho,
    streamUsage: entry.stream_usage ?? base.streamUsage,
    vision: entry.vision ?? base.vision,
    ...pricesOf(entry, base),
  };
}

/** The entry's own prices replace the built-in's whole (one table at all hours). */
function pricesOf(entry: UserModelConfig, base: ModelInfo): { prices?: ModelPrices } {
  if (entry.prices !== undefined) {
    const { cache_hit, cache_miss, output } = entry.prices;
    return { prices: { standard: { cacheHit: cache_hit, cacheMiss: cache_miss, output } } };
  }
  return base.prices === undefined ? {} : { prices: base.prices };
}
