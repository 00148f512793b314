/**
 * What model tokens cost: per-model price tables (USD per million tokens) as data, DeepSeek's
 * peak and off-peak windows, and the cost of one request's reported usage.
 */

/** USD per 1M tokens, split the way DeepSeek bills: prompt cache hits, misses, and output. */
export interface PriceTable {
  readonly cacheHit: number;
  readonly cacheMiss: number;
  readonly output: number;
}

/** An hour range in UTC, `[fromHour, toHour)`, on the given days (0 = Sunday). */
export interface PriceWindow {
  readonly days: readonly number[];
  readonly fromHour: number;
  readonly toHour: number;
}

/** A model's prices: one table, or a second one for the windows the provider calls peak. */
export interface ModelPrices {
  readonly standard: PriceTable;
  readonly peak?: { readonly prices: PriceTable; readonly windows: readonly PriceWindow[] };
}

/** The tokens of one request as billed. */
export interface BilledTokens {
  readonly cacheHit: number;
  readonly cacheMiss: number;
  readonly output: number;
}

const WEEKDAYS = [1, 2, 3, 4, 5];

/** DeepSeek's peak hours: 01:00–04:00 and 06:00–10:00 UTC on weekdays. */
const DEEPSEEK_PEAK_WINDOWS: readonly PriceWindow[] = [
  { days: WEEKDAYS, fromHour: 1, toHour: 4 },
  { days: WEEKDAYS, fromHour: 6, toHour: 10 },
];

/** DeepSeek Flash (V4.1): off-peak and peak. */
export const DEEPSEEK_FLASH_PRICES: ModelPrices = {
  standard: { cacheHit: 0.003, cacheMiss: 0.15, output: 0.6 },
  peak: {
    prices: { cacheHit: 0.006, cacheMiss: 0.3, output: 1.2 },
    windows: DEEPSEEK_PEAK_WINDOWS,
  },
};

/** DeepSeek V4 Pro: off-peak and peak. */
export const DEEPSEEK_PRO_PRICES: ModelPrices = {
  standard: { cacheHit: 0.022, cacheMiss: 0.66, output: 1.98 },
  peak: {
    prices: { cacheHit: 0.044, cacheMiss: 1.32, output: 3.96 },
    windows: DEEPSEEK_PEAK_WINDOWS,
  },
};

/** The table in force at `at`: the peak one inside a peak window, else the standard one. */
export function pricesAt(prices: ModelPrices, at: Date): PriceTable {
  const { peak } = prices;
  if (peak === undefined) return prices.standard;
  const day = at.getUTCDay();
  const hour = at.getUTCHours();
  const inPeak = peak.windows.some(
    (window) => window.days.includes(day) && hour >= window.fromHour && hour < window.toHour,
  );
  return inPeak ? peak.prices : prices.standard;
}

/**
 * The cost in USD of `tokens` billed at `at`; 0 for a model without prices.
 * @returns a non-negative number (never NaN: negative or non-finite counts count as 0)
 */
export function costOf(tokens: BilledTokens, prices: ModelPrices | undefined, at: Date): number {
  if (prices === undefined) return 0;
  const table = pricesAt(prices, at);
  const count = (n: number) => (Number.isFinite(n) && n > 0 ? n : 0);
  return (
    (count(tokens.cacheHit) * table.cacheHit +
      count(tokens.cacheMiss) * table.cacheMiss +
      count(tokens.output) * table.output) /
    1_000_000
  );
}
