/**
 * Approval questions answered at the terminal with one key: y (once), a (always: saves the
 * offered rules, each quoted in the prompt as `dsh rules` will list it), n or Enter (deny).
 * Piped, a line answers (`y`, `yes`, `a`, `always`); anything else is a deny.
 */
import type { ApprovalAnswerer } from "../approval/types.ts";
import { terminalText } from "../render/terminal-text.ts";
import type { RenderIntent } from "../render/intent.ts";
import { describeRule } from "../rules/match.ts";
import { changedLines } from "./changed-lines.ts";
import { type LineQueue, afterQueuedOutput } from "./line-queue.ts";
import type { TextSink } from "./types.ts";

export interface TerminalAnswererDeps {
  readonly lines: () => LineQueue | undefined;
  readonly out: TextSink;
  /** Told of each tool call whose diff the prompt showed, so its result does not show it again. */
  readonly diffShown?: (toolCallId: string) => void;
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
      const { offer } = request;
      let prompt: string;
      if (request.kind === "network") {
        // One line: the host and the command are in the title.
        const always = offer === undefined ? "" : `, a: ${terminalText(offer.label)}`;
        deps.out.write("\n");
        prompt = `? ${title}${reason === "" ? "" : ` (${reason})`} [y: once${always}, N: no] `;
      } else {
        deps.out.write(`\n? ${title}\n${terminalText(detailOf(request.intent))}  ${reason}\n`);
        if (request.intent.type === "diff" && request.toolCallId !== undefined)
          deps.diffShown?.(request.toolCallId);
        if (offer !== undefined) {
          const rules = offer.rules.map((rule) => `"${describeRule(rule)}"`).join(", ");
          deps.out.write(
            `  a: always allow: saves ${offer.rules.length === 1 ? "the rule" : "the rules"} ${terminalText(rules)} for ${terminalText(offer.project)}\n`,
          );
        }
        prompt = offer === undefined ? "  Allow? [y/N] " : "  Allow? [y/a/N] ";
      }
      const onAbort = () => lines.interrupt();
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        const choice = await lines.choose(
          prompt,
          offer === undefined ? ["y", "n"] : ["y", "a", "n"],
        );
        if (signal.aborted) return "deny";
        if (choice === "y" || choice === "yes") return "allow";
        if ((choice === "a" || choice === "always") && offer !== undefined) return "allow_always";
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
