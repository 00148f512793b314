/**
 * What dsh guards on disk, derived from the configuration and the environment once, for both
 * the command sandbox and the file tools: dsh's own configuration (never changed by the
 * model) and where the credential set lies.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { CredentialScope } from "../permission/credentials.ts";
import type { Config } from "./config.ts";

/**
 * dsh's configuration, which no command and no file tool may change under any preset. The
 * default config directory (`$XDG_CONFIG_HOME/dsh`) is protected whole. A `DSH_CONFIG` may
 * name a file in any folder, even a project root, so then only that file and what dsh loads
 * from beside it are: the global `AGENTS.md`, and the `skills/`, `commands/` and `agents/`
 * folders.
 */
export function protectedConfigPaths(
  config: Pick<Config, "configPath" | "configDir">,
  env: Readonly<Record<string, string | undefined>>,
): readonly string[] {
  return explicitConfig(env)
    ? [config.configPath, ...BESIDE_CONFIG.map((name) => join(config.configDir, name))]
    : [config.configDir];
}

/**
 * Creates dsh's own config directory when it is missing (empty, never removed), so that the
 * sandbox can keep it read-only: a missing one could only be guarded by removing it after a
 * command, and a dsh starting meanwhile would load what the command wrote there. Never throws.
 */
export function ensureOwnConfigDir(
  config: Pick<Config, "configDir">,
  env: Readonly<Record<string, string | undefined>>,
): void {
  if (explicitConfig(env)) return;
  try {
    mkdirSync(config.configDir, { recursive: true });
  } catch {
    // Not ours to create (a read-only home): then nothing can create it inside a sandbox either.
  }
}

/** What dsh reads from the config file's folder besides the file. */
const BESIDE_CONFIG = ["AGENTS.md", "skills", "commands", "agents"];

function explicitConfig(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.DSH_CONFIG !== undefined && env.DSH_CONFIG.trim() !== "";
}

/** Where the credential set lies for this process: home, the XDG directories, dsh's state. */
export function credentialScopeOf(
  home: string,
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
): CredentialScope {
  return {
    home,
    configHome: env.XDG_CONFIG_HOME || undefined,
    dataHome: env.XDG_DATA_HOME || undefined,
    stateDir: config.home,
  };
}
