/**
 * What of dsh's configuration no model write may change: the whole config directory when it
 * is dsh's own (`~/.config/dsh`, with `config.toml` and the global `AGENTS.md`), or, when
 * `DSH_CONFIG` names a file in some other folder, that file and the `AGENTS.md` beside it
 * (protecting that whole folder could make a project read-only).
 */
import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import type { Config } from "./config.ts";

/** Absolute paths, for the command sandbox's and the file tools' `protectedDirs`. */
export function configProtections(config: Pick<Config, "configPath" | "configDir">): string[] {
  return ownsConfigDir(config)
    ? [config.configDir]
    : [config.configPath, join(config.configDir, "AGENTS.md")];
}

/**
 * Creates dsh's own config directory when it is missing (empty, never removed), so that the
 * sandbox can keep it read-only: a missing one could only be guarded by removing it after a
 * command, and a dsh starting meanwhile would load what the command wrote there. Never throws.
 */
export function ensureConfigDir(config: Pick<Config, "configPath" | "configDir">): void {
  if (!ownsConfigDir(config)) return;
  try {
    mkdirSync(config.configDir, { recursive: true });
  } catch {
    // Not ours to create (a read-only home): then nothing can create it inside a sandbox either.
  }
}

function ownsConfigDir(config: Pick<Config, "configPath" | "configDir">): boolean {
  return basename(config.configDir) === "dsh" && basename(config.configPath) === "config.toml";
}
