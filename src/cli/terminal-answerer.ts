/** Approval questions answered with y/n at the terminal. Anything but yes is a deny. */
import type { ApprovalAnswerer } from "../approval/types.ts";
import type { LineQueue } from "./line-queue.ts";
import type { TextSink } from "./render.ts";

export interface TerminalAnswererDeps {
  readonly lines: () => LineQueue | undefined;
  readonly out: TextSink;
}

export function createTerminalAnswerer(deps: TerminalAnswererDeps): ApprovalAnswerer {
  return {
    async answer(request, signal) {
      const lines = deps.lines();
      if (!lines || signal.aborted) return "deny";
      lines.dropTypeahead();
      const detail = request.intent.type === "terminal" ? `\n  $ ${request.intent.command}` : "";
      deps.out.write(`\n? ${request.title}${detail}\n  ${request.reason}\n  Allow? [y/N] `);
      const onAbort = () => lines.interrupt();
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        const line = await lines.next();
        const yes = line !== undefined && /^\s*y(es)?\s*$/i.test(line);
        return yes && !signal.aborted ? "allow" : "deny";
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    },
  };
}
