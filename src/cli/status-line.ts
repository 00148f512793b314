/** One line of context and cost for the terminal: `context 12,345 / 1,048,576 tokens (1%) · $0.0042`. */
import type { BackgroundCommand, SessionStatus } from "../agent/types.ts";

/**
 * @param status what the session's handle reports
 * @returns the line, without a newline
 */
export function formatStatusLine(status: SessionStatus): string {
  const { contextUsed, contextWindow } = status;
  const share = contextWindow > 0 ? Math.round((contextUsed / contextWindow) * 100) : 0;
  const running = (status.background ?? []).filter((command) => command.status === "running");
  const background =
    running.length === 0
      ? ""
      : ` · running in the background: ${running.map(backgroundText).join(", ")}`;
  return `context ${count(contextUsed)} / ${count(contextWindow)} tokens (${share}%) · ${formatUsd(status.costUsd)}${background}`;
}

/** Dollars with cents, or four decimals below ten cents (DeepSeek's turns cost fractions of one). */
export function formatUsd(amount: number): string {
  const usd = Number.isFinite(amount) && amount > 0 ? amount : 0;
  return `$${usd.toFixed(usd < 0.1 ? 4 : 2)}`;
}

/** `bg-1 (npm run dev)`, the command cut to one short line. */
function backgroundText(command: BackgroundCommand): string {
  const line = command.command.replace(/\s+/g, " ").trim();
  return `${command.id} (${line.length > 40 ? `${line.slice(0, 39)}…` : line})`;
}

function count(n: number): string {
  return Math.max(0, Math.round(n)).toLocaleString("en-US");
}
