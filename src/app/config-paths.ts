/**
 * What of dsh's configuration no model write may change: the whole config directory when it
 * is dsh's own (`~/.config/dsh`, with `config.toml` and the global `AGENTS.md`), or, when
 * `DSH_CONFIG` names a file in some other folder, that file and the `AGENTS.md` beside it
 * (protecting that whole folder could make a project read-only).
 */
import { basename, join } from "node:path";
import type { Config } from "./config.ts";

/** Absolute paths, for the command sandbox's and the file tools' `protectedDirs`. */
export function configProtections(config: Pick<Config, "configPath" | "configDir">): string[] {
  const own = basename(config.configDir) === "dsh" && basename(config.configPath) === "config.toml";
  return own ? [config.configDir] : [config.configPath, join(config.configDir, "AGENTS.md")];
}
