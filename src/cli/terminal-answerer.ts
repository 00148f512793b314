/**
 * Approval questions answered at the terminal: y (once), a (always: saves the offered rule,
 * shown in the prompt), n. Anything else is a deny.
 */
import type { ApprovalAnswerer } from "../approval/types.ts";
import { terminalText } from "../exec/sanitize.ts";
import type { RenderIntent } from "../render/intent.ts";
import { changedLines } from "./changed-lines.ts";
import { type LineQueue, afterQueuedOutput } from "./line-queue.ts";
import type { TextSink } from "./types.ts";

export interface TerminalAnswererDeps {
  readonly lines: () => LineQueue | undefined;
  readonly out: TextSink;
}

export function createTerminalAnswerer(deps: TerminalAnswererDeps): ApprovalAnswerer {
  return {
    async answer(request, signal) {
      const lines = deps.lines();
      if (!lines) return "deny";
      await afterQueuedOutput();
      if (signal.aborted) return "deny";
      lines.dropTypeahead();
      const title = terminalText(request.title);
      const reason = terminalText(request.reason);
      if (request.kind === "network") {
        // One line: the host and the command are in the title.
        const always =
          request.offer === undefined ? "" : `, a: ${terminalText(request.offer.label)}`;
        deps.out.write("\n");
        lines.prompt(`? ${title}${reason === "" ? "" : ` (${reason})`} [y: once${always}, N: no] `);
      } else {
        deps.out.write(`\n? ${title}\n${terminalText(detailOf(request.intent))}  ${reason}\n`);
        if (request.offer !== undefined)
          deps.out.write(`  a: ${terminalText(request.offer.label)}\n`);
        lines.prompt(request.offer === undefined ? "  Allow? [y/N] " : "  Allow? [y/a/N] ");
      }
      const onAbort = () => lines.interrupt();
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        const line = (await lines.next())?.trim().toLowerCase();
        if (signal.aborted) return "deny";
        if (line === "y" || line === "yes") return "allow";
        if ((line === "a" || line === "always") && request.offer !== undefined)
          return "allow_always";
        return "deny";
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    },
  };
}

/** What the person approves: the command, or the lines a write would change. */
function detailOf(intent: RenderIntent): string {
  switch (intent.type) {
    case "terminal":
      return `  $ ${intent.command}\n`;
    case "diff":
      return changedLines(intent.oldText, intent.newText)
        .map((line) => `  ${line}\n`)
        .join("");
    case "generic":
      // An MCP call: its server, tool and arguments (bounded; the arguments can be long).
      return (intent.text ?? "")
        .split("\n")
        .filter((line) => line !== "")
        .slice(0, 20)
        .map((line) => `  ${line}\n`)
        .join("");
    case "plan":
      return "";
    default: {
      const unhandled: never = intent;
      return String(unhandled);
    }
  }
}
