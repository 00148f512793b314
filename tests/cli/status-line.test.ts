import { describe, expect, test } from "bun:test";
import { formatStatusLine, formatUsd } from "../../src/cli/status-line.ts";

describe("the status line", () => {
  test("context used of the window, its share, and the cost", () => {
    expect(
      formatStatusLine({ contextUsed: 262_144, contextWindow: 1_048_576, costUsd: 0.04217 }),
    ).toBe("context 262,144 / 1,048,576 tokens (25%) · $0.0422");
    expect(formatStatusLine({ contextUsed: 0, contextWindow: 0, costUsd: 0 })).toBe(
      "context 0 / 0 tokens (0%) · $0.0000",
    );
  });

  test("cents from ten cents up; nonsense amounts show as zero", () => {
    expect([formatUsd(12.345), formatUsd(0.1), formatUsd(Number.NaN), formatUsd(-1)]).toEqual([
      "$12.35",
      "$0.10",
      "$0.0000",
      "$0.0000",
    ]);
  });
});
