/** How `dsh doctor` prints its checks: one line each, a fix where one is known. */
import { terminalText } from "../render/terminal-text.ts";
import type { CliIo } from "./io.ts";

/** One checked part of the setup. */
export interface Check {
  readonly name: string;
  readonly ok: boolean;
  /** Works, but may not for long: shown with `!`, not counted as a failure. */
  readonly warning?: boolean;
  /** What was found; for a failure, what is wrong and how to fix it. */
  readonly detail: string;
}

/** Prints the checks; returns the exit code (1 when any failed). */
export function printChecks(io: Pick<CliIo, "stdout">, checks: readonly Check[]): number {
  for (const check of checks)
    io.stdout.write(
      `${check.ok ? (check.warning === true ? "!" : "✓") : "✗"} ${check.name}: ${terminalText(check.detail)}\n`,
    );
  return checks.every((check) => check.ok) ? 0 : 1;
}
