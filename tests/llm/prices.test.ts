import { describe, expect, test } from "bun:test";
import {
  costOf,
  DEEPSEEK_FLASH_PRICES,
  DEEPSEEK_PRO_PRICES,
  pricesAt,
} from "../../src/llm/prices.ts";

// 2026-12-01 is a Tuesday, 2026-12-05 a Saturday.
const at = (iso: string) => new Date(iso);

describe("prices", () => {
  test("DeepSeek's peak is 01:00-04:00 and 06:00-10:00 UTC on weekdays only", () => {
    const table = (iso: string) => pricesAt(DEEPSEEK_FLASH_PRICES, at(iso)).cacheMiss;
    expect([
      table("2026-12-01T00:59:59Z"),
      table("2026-12-01T01:00:00Z"),
      table("2026-12-01T03:59:59Z"),
      table("2026-12-01T04:00:00Z"),
      table("2026-12-01T05:30:00Z"),
      table("2026-12-01T06:00:00Z"),
      table("2026-12-01T09:59:59Z"),
      table("2026-12-01T10:00:00Z"),
      table("2026-12-05T07:00:00Z"),
    ]).toEqual([0.15, 0.3, 0.3, 0.15, 0.15, 0.3, 0.3, 0.15, 0.15]);
  });

  test("a request costs hits, misses and output at the table in force", () => {
    const tokens = { cacheHit: 1_000_000, cacheMiss: 2_000_000, output: 500_000 };
    expect(costOf(tokens, DEEPSEEK_PRO_PRICES, at("2026-12-01T12:00:00Z"))).toBeCloseTo(
      0.022 + 2 * 0.66 + 0.5 * 1.98,
      12,
    );
    expect(costOf(tokens, DEEPSEEK_PRO_PRICES, at("2026-12-01T02:00:00Z"))).toBeCloseTo(
      0.044 + 2 * 1.32 + 0.5 * 3.96,
      12,
    );
  });

  test("no prices, or nonsense counts, cost nothing rather than NaN", () => {
    const now = at("2026-12-01T12:00:00Z");
    expect(costOf({ cacheHit: 5, cacheMiss: 5, output: 5 }, undefined, now)).toBe(0);
    expect(
      costOf({ cacheHit: Number.NaN, cacheMiss: -3, output: 0 }, DEEPSEEK_FLASH_PRICES, now),
    ).toBe(0);
  });
});
