/**
 * What dsh guards on disk, derived from the configuration and the environment once, for both
 * the command sandbox and the file tools: dsh's own configuration (never changed by the
 * model) and where the credential set lies.
 */
import { join } from "node:path";
import type { CredentialScope } from "../permission/credentials.ts";
import type { Config } from "./config.ts";

/**
 * dsh's configuration, which no command and no file tool may change under any preset. The
 * default config directory (`$XDG_CONFIG_HOME/dsh`) is protected whole. A `DSH_CONFIG` may
 * name a file in any folder, even a project root, so then only that file and the global
 * `AGENTS.md` beside it are.
 */
export function protectedConfigPaths(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
): readonly string[] {
  const explicit = env.DSH_CONFIG !== undefined && env.DSH_CONFIG !== "";
  return explicit ? [config.configPath, join(config.configDir, "AGENTS.md")] : [config.configDir];
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
