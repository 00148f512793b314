/** Contracts of the approval seam: how a plugin asks a human, and who answers. */
import type { ApprovalSubject, RuleOffer } from "../rules/types.ts";
import type { RenderIntent } from "../render/intent.ts";

export type { ApprovalSubject };

/** Why a decision is needed. */
export type ApprovalKind =
  /** A file write outside the writable roots, or any write under a read-only preset. */
  | "write"
  /** A `bash` call with `escalate: true`: run outside the sandbox. */
  | "escalate"
  /** No sandbox backend works: the command would run unsandboxed. */
  | "unsandboxed"
  /** A call to an MCP server's tool: servers run outside the sandbox, as the user. */
  | "mcp"
  /** A sandboxed command (or a fetch) wants to reach a host no rule allows. */
  | "network";

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
  /** For `mcp`: the server and the tool as the server names it. */
  readonly mcpTool?: { readonly server: string; readonly tool: string };
  /** What an "always allow" would cover; without it only allow once and reject are offered. */
  readonly subject?: ApprovalSubject;
  /** The session root (realpath'd): rules are kept for the project that holds it. */
  readonly cwd?: string;
}

/**
 * A request as answerers see it: with the rule an "always allow" would save, when the seam
 * has a rule book and the subject can be made into a rule.
 */
export interface AskedRequest extends ApprovalRequest {
  readonly offer?: RuleOffer;
}

export type ApprovalDecision = "allow" | "deny";

/** An answerer's choice; `allow_always` (only with an `offer`) saves the offered rules. */
export type ApprovalAnswer = ApprovalDecision | "allow_always";

/**
 * One way of asking. `pass` hands the request to the next answerer (a foreign session, a
 * request it cannot show). An answerer that throws counts as a deny.
 */
export interface ApprovalAnswerer {
  answer(request: AskedRequest, signal: AbortSignal): Promise<ApprovalAnswer | "pass">;
}

/**
 * Tries answerers in order. No answerer, all passing, or one throwing: deny (fail closed). A
 * saved rule that covers the request allows it without asking.
 */
export interface ApprovalSeam {
  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}
