/**
 * The log of the terminal surfaces when it goes to stderr: warnings and errors only, each one
 * plain line (`dsh: warning: instruction file refused; it is not in the system prompt: path
 * "/p/AGENTS.md", reason "holds credentials"`), never a record with a timestamp and JSON.
 */
import { terminalText } from "../render/terminal-text.ts";
import type { Logger } from "../log.ts";

export function createTerminalLogger(stderr: { write(text: string): void }): Logger {
  const ignore = () => {};
  const line = (prefix: string) => (message: string, data?: Record<string, unknown>) => {
    const details = data === undefined ? "" : describe(data);
    const text = `${message}${details === "" ? "" : `: ${details}`}`;
    try {
      stderr.write(`dsh: ${prefix}${terminalText(text).replace(/\s*\n\s*/g, " ")}\n`);
    } catch {
      // Logging must never break the caller.
    }
  };
  return { debug: ignore, info: ignore, warn: line("warning: "), error: line("") };
}

/** `key "value", other 3`: strings quoted, errors by their message, the rest as JSON. */
function describe(data: Record<string, unknown>): string {
  return Object.entries(data)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key} ${valueText(value)}`)
    .join(", ");
}

function valueText(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
