/**
 * Diagnostics for people: one line per entry to stderr or a file (`DSH_LOG`). Never stdout,
 * which belongs to the ACP protocol. Secrets must never be passed in `data`.
 */
import { nodeFs } from "./lazy-builtins.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";

export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface LoggerOptions {
  /** `stderr`, or a file path to append to. */
  readonly destination: string;
  readonly level?: LogLevel;
}

/** Creates a logger; a write that fails (full disk, closed stderr) is dropped silently. */
export function createLogger(options: LoggerOptions): Logger {
  const threshold = RANK[options.level ?? "info"];
  const write = (line: string) => {
    try {
      if (options.destination === "stderr") process.stderr.write(line);
      else nodeFs().appendFileSync(options.destination, line);
    } catch {
      // Logging must never break the caller.
    }
  };
  const entry = (level: LogLevel) => (message: string, data?: Record<string, unknown>) => {
    if (RANK[level] < threshold) return;
    const suffix = data === undefined ? "" : ` ${safeJson(data)}`;
    write(`${new Date().toISOString()} ${level.toUpperCase()} ${message}${suffix}\n`);
  };
  return { debug: entry("debug"), info: entry("info"), warn: entry("warn"), error: entry("error") };
}

/** A logger that drops everything: for tests and for surfaces that report errors themselves. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

function safeJson(data: Record<string, unknown>): string {
  try {
    return JSON.stringify(data, (_key, value) =>
      value instanceof Error ? { name: value.name, message: value.message } : value,
    );
  } catch {
    return "[unserialisable]";
  }
}
