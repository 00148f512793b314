/**
 * What a resumed session shows before the prompt: its last exchanges, read from the log (the
 * model gets the whole history; the person gets enough to pick up the thread).
 */
import type { SessionEvent } from "../agent/types.ts";
import { terminalText } from "../render/terminal-text.ts";
import type { Style } from "./style.ts";

/** Exchanges shown. */
const EXCHANGES = 3;
/** Lines of one message shown before the rest is summarised. */
const MESSAGE_LINES = 8;

/** The last exchanges as printable lines (empty for a session with no turn yet). */
export function recentExchanges(history: readonly SessionEvent[], style: Style): string {
  const turns: SessionEvent[][] = [];
  for (const event of history) {
    if (event.type === "turn_start") turns.push([]);
    turns.at(-1)?.push(event);
  }
  const shown = turns.slice(-EXCHANGES);
  if (shown.length === 0) return "";
  const earlier = turns.length - shown.length;
  const out: string[] = [];
  if (earlier > 0) out.push(style.dim(`… ${earlier} earlier exchange${earlier === 1 ? "" : "s"}`));
  for (const turn of shown) {
    for (const event of turn) {
      switch (event.type) {
        case "user_message": {
          const text = event.content
            .map((part) => {
              if (part.type === "text") return part.text;
              if (part.type === "resource_link") return `@${part.name}`;
              if (part.type === "resource") return `@${part.uri}`;
              return "[image]";
            })
            .join(" ");
          out.push(...clip(text).map((line, i) => `${i === 0 ? "› " : "  "}${line}`));
          break;
        }
        case "assistant_text":
          if (event.text.trim() !== "") out.push(...clip(event.text));
          break;
        case "tool_call":
          out.push(style.dim(`▸ ${terminalText(event.intent.title).replace(/\s*\n\s*/g, " ")}`));
          break;
        case "turn_end":
          if (event.reason !== "end_turn") out.push(style.dim(`(${event.reason})`));
          out.push("");
          break;
        default:
          break;
      }
    }
  }
  return `${out.join("\n").replace(/\n+$/, "")}\n`;
}

function clip(text: string): string[] {
  const lines = terminalText(text).trim().split("\n");
  if (lines.length <= MESSAGE_LINES) return lines;
  return [...lines.slice(0, MESSAGE_LINES), `… ${lines.length - MESSAGE_LINES} more lines`];
}
