/**
 * The logger's level from `DSH_LOG_LEVEL`: `debug`, `info`, `warn` or `error`. Without it,
 * stderr gets warnings and errors only (an editor may show every stderr line as an error) and
 * a log file (`DSH_LOG=path`) gets `info` too.
 */
import * as v from "valibot";
import type { LogLevel } from "../log.ts";

const Level = v.picklist(["debug", "info", "warn", "error"]);

/** The level, and a problem to log when the variable holds something else. */
export function logLevelOf(
  env: Readonly<Record<string, string | undefined>>,
  destination: string,
): { readonly level: LogLevel; readonly problem?: string } {
  const fallback: LogLevel = destination === "stderr" ? "warn" : "info";
  const raw = env.DSH_LOG_LEVEL?.trim().toLowerCase();
  if (raw === undefined || raw === "") return { level: fallback };
  if (v.is(Level, raw)) return { level: raw };
  return {
    level: fallback,
    problem: `DSH_LOG_LEVEL=${JSON.stringify(env.DSH_LOG_LEVEL)} is not a level (debug, info, warn, error); using ${fallback}`,
  };
}
