/**
 * Where `dsh acp` logs and how much. `DSH_LOG` is the destination (`stderr` or a file path);
 * a level name there (`DSH_LOG=debug`) means stderr at that level. `DSH_LOG_LEVEL` (`debug`,
 * `info`, `warn`, `error`) sets the level and wins. Without either, stderr gets warnings and
 * errors only (an editor may show every stderr line as an error) and a log file gets `info` too.
 */
import * as v from "valibot";
import type { LogLevel } from "../log.ts";

const Level = v.picklist(["debug", "info", "warn", "error"]);

/** The logger's destination and level, and a problem to log when a variable made no sense. */
export interface LogSettings {
  readonly destination: string;
  readonly level: LogLevel;
  readonly problem?: string;
}

/**
 * Reads `DSH_LOG` and `DSH_LOG_LEVEL` over `log`, the configured destination (the config file's
 * `log` or `DSH_LOG`, made absolute).
 */
export function logSettingsOf(
  env: Readonly<Record<string, string | undefined>>,
  log: string,
): LogSettings {
  const named = env.DSH_LOG?.trim().toLowerCase();
  const destination = v.is(Level, named) ? "stderr" : log;
  const fallback: LogLevel = v.is(Level, named)
    ? named
    : destination === "stderr"
      ? "warn"
      : "info";
  const raw = env.DSH_LOG_LEVEL?.trim().toLowerCase();
  if (raw === undefined || raw === "") return { destination, level: fallback };
  if (v.is(Level, raw)) return { destination, level: raw };
  return {
    destination,
    level: fallback,
    problem: `DSH_LOG_LEVEL=${JSON.stringify(env.DSH_LOG_LEVEL)} is not a level (debug, info, warn, error); using ${fallback}`,
  };
}
