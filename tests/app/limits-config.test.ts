/** The `[limits]` table: resource bounds of sandboxed commands, with defaults. */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/app/config.ts";
import { DEFAULT_PROCESSES, commandLimits, withinHardLimits } from "../../src/exec/limits.ts";

const MIB = 1024 * 1024;

function withConfig<T>(toml: string, use: (env: Record<string, string>) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "dsh-limits-config-"));
  try {
    writeFileSync(join(dir, "config.toml"), toml);
    return use({ HOME: dir, DSH_CONFIG: join(dir, "config.toml") });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("[limits] sets the process and memory bounds of sandboxed commands", () => {
  const config = withConfig("[limits]\nprocesses = 300\nmemory_mb = 2048\n", loadConfig);
  expect(config.limits).toEqual({ processes: 300, memory_mb: 2048 });
  expect(commandLimits(config.limits, 16 * 1024 * MIB)).toEqual({
    processes: 300,
    memoryBytes: 2048 * MIB,
  });
});

test("without [limits]: the default process bound and three quarters of the memory", () => {
  const config = withConfig("", loadConfig);
  expect(commandLimits(config.limits, 16 * 1024 * MIB)).toEqual({
    processes: DEFAULT_PROCESSES,
    memoryBytes: 12 * 1024 * MIB,
  });
});

test("a bad [limits] value is a ConfigError naming the key", () => {
  for (const [toml, key] of [
    ["[limits]\nprocesses = 0\n", "processes"],
    ["[limits]\nmemory_mb = 1.5\n", "memory_mb"],
    ["[limits]\nmemory = 100\n", "memory"],
  ] as const) {
    const load = () => withConfig(toml, loadConfig);
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(key);
  }
});

test("a bound above the hard limit dsh runs under is lowered to it, never raised past it", () => {
  const procLimits = [
    "Limit                     Soft Limit           Hard Limit           Units     ",
    "Max data size             unlimited            unlimited            bytes     ",
    "Max processes             500                  1000                 processes ",
  ].join("\n");
  expect(withinHardLimits({ processes: 2048, memoryBytes: 512 * MIB }, procLimits)).toEqual({
    processes: 1000,
    memoryBytes: 512 * MIB,
  });
});
