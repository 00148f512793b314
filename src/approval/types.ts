/** Contracts of the approval seam: how a plugin asks a human, and who answers. */
import type { RenderIntent } from "../tools/intent.ts";

/** Why a decision is needed. */
export type ApprovalKind =
  /** A file write outside the writable roots, or any write under a read-only preset. */
  | "write"
  /** A `bash` call with `escalate: true`: run outside the sandbox. */
  | "escalate"
  /** No sandbox backend works: the command would run unsandboxed. */
  | "unsandboxed"
  /** A call to an MCP server's tool: servers run outside the sandbox, as the user. */
  | "mcp";

export interface ApprovalRequest {
  readonly sessionId: string;
  /** The tool call this decision belongs to; answerers that show a tool call need it. */
  readonly toolCallId?: string;
  readonly kind: ApprovalKind;
  /** One line: what would happen ("Write /etc/hosts", "Run `make install` unsandboxed"). */
  readonly title: string;
  /** Why it asks: the policy reason, plus the model's justification when it gave one. */
  readonly reason: string;
  /** What to show: the diff of a write, the command of a run. */
  readonly intent: RenderIntent;
  readonly rawInput?: unknown;
  /** For `mcp`: the server and the tool as the server names it, for a rule to match one tool. */
  readonly mcpTool?: { readonly server: string; readonly tool: string };
}

export type ApprovalDecision = "allow" | "deny";

/**
 * One way of asking. `pass` hands the request to the next answerer (a foreign session, a
 * request it cannot show). An answerer that throws counts as a deny.
 */
export interface ApprovalAnswerer {
  answer(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision | "pass">;
}

/** Tries answerers in order. No answerer, all passing, or one throwing: deny (fail closed). */
export interface ApprovalSeam {
  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}
