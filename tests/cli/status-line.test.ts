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

  test("the background commands still running, each by id and command", () => {
    const background = [
      { id: "bg-1", command: "python3 -m http.server 8123", status: "running" },
      { id: "bg-2", command: "make test", status: "exited 0" },
      { id: "bg-3", command: `bun run dev --port 3000 ${"x".repeat(40)}`, status: "running" },
    ];
    expect(formatStatusLine({ contextUsed: 0, contextWindow: 0, costUsd: 0, background })).toBe(
      "context 0 / 0 tokens (0%) · $0.0000 · running in the background: " +
        "bg-1 (python3 -m http.server 8123), bg-3 (bun run dev --port 3000 xxxxxxxxxxxxxxx…)",
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
