/** A model request's usage, logged with its cache hits, misses and cost at its model's prices. */
import { costOf } from "../llm/prices.ts";
import type { ModelInfo, Usage } from "../llm/types.ts";
import type { SessionLog } from "../session/types.ts";

export interface UsageLogDeps {
  readonly log: SessionLog;
  readonly model: ModelInfo;
  readonly now: () => Date;
}

/**
 * Appends the usage event. Hits are the server's cached tokens (0 when it does not say);
 * misses are its own count, else the rest of the prompt.
 * @returns the request's cost in USD
 */
export function logUsage(
  deps: UsageLogDeps,
  entry: {
    readonly turnId: string;
    readonly step?: number;
    readonly usage: Usage;
    readonly compaction?: true;
  },
): number {
  const { usage } = entry;
  const cacheHitTokens = usage.cachedTokens ?? 0;
  const cacheMissTokens = usage.cacheMissTokens ?? Math.max(0, usage.promptTokens - cacheHitTokens);
  const costUsd = costOf(
    { cacheHit: cacheHitTokens, cacheMiss: cacheMissTokens, output: usage.completionTokens },
    deps.model.prices,
    deps.now(),
  );
  deps.log.append({
    type: "usage",
    turnId: entry.turnId,
    ...(entry.step === undefined ? {} : { step: entry.step }),
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cacheHitTokens,
    cacheMissTokens,
    ...(usage.reasoningTokens === undefined ? {} : { reasoningTokens: usage.reasoningTokens }),
    costUsd,
    contextWindow: deps.model.contextWindow,
    ...(entry.compaction ? { compaction: true } : {}),
  });
  return costUsd;
}
