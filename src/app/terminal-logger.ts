/**
 * The log of the terminal surfaces when it goes to stderr: errors only, each one plain line
 * (`dsh: session log not flushed on close`), never a record with a timestamp and JSON. Warnings
 * that matter to the user while a turn runs (retries, stalls) arrive as notices instead.
 */
import { terminalText } from "../exec/sanitize.ts";
import type { Logger } from "../log.ts";

export function createTerminalLogger(stderr: { write(text: string): void }): Logger {
  const ignore = () => {};
  return {
    debug: ignore,
    info: ignore,
    warn: ignore,
    error(message, data) {
      const cause = data?.error;
      const detail = cause instanceof Error ? `: ${cause.message}` : "";
      try {
        stderr.write(`dsh: ${terminalText(`${message}${detail}`).replace(/\s*\n\s*/g, " ")}\n`);
      } catch {
        // Logging must never break the caller.
      }
    },
  };
}
