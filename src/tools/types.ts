/** Contracts of tools: validated inputs, results the model reads, and their presentation. */
import type * as v from "valibot";
import type { ApprovalDecision, ApprovalRequest } from "../approval/types.ts";
import type { Knobs } from "../permission/knobs.ts";
import type { ToolDefinition } from "../llm/types.ts";
import type { RenderIntent } from "../render/intent.ts";

export type { RenderIntent };

/** How a command a call left running ended. */
export interface ProgressExit {
  readonly code: number | null;
  readonly signal: string | null;
}

/** What the model reads back. `details` is structured data for the tool's own presenter. */
export interface ToolResult<Details = unknown> {
  readonly isError: boolean;
  readonly output: string;
  readonly details?: Details;
  /** What the call cost in USD (a paid API's, such as DeepSeek's Search); counts in the session's cost. */
  readonly costUsd?: number;
}

/** An approval request as a tool makes it; the call's context adds its session and call id. */
export type ToolApprovalRequest = Omit<ApprovalRequest, "sessionId" | "toolCallId">;

/** How an ask ended. `refused`: the approval policy never asks, so nobody was asked. */
export type AskOutcome = ApprovalDecision | "refused";

/**
 * The facts of one tool call. What stays the same across calls (the command runner, the
 * interaction seam, the secret places) is given to a tool when it is built.
 */
export interface ToolContext {
  readonly signal: AbortSignal;
  readonly sessionId: string;
  readonly toolCallId: string;
  /** The session root, realpath'd: relative paths resolve against it; it bounds writes. */
  readonly cwd: string;
  /**
   * The session's added directories (realpaths): each bounds writes as the root does, and
   * commands may write there as in the root.
   */
  readonly roots?: readonly string[];
  /** The session's current permission knobs. */
  readonly knobs: Knobs;
  /**
   * Asks the user to approve what this call is about to do, under the session's approval
   * policy: with `never` the outcome is `refused` and nobody is asked; otherwise the approval
   * seam decides, and nobody answering is `deny`. Never throws. `signal` ends this one
   * question early (as a deny), beside the call's own signal.
   */
  ask(request: ToolApprovalRequest, signal?: AbortSignal): Promise<AskOutcome>;
  /**
   * Live progress (e.g. command output) for subscribers; never logged chunk by chunk. `exit`
   * says a command the call left running (in the background) has ended.
   */
  readonly progress: (chunk: string, exit?: ProgressExit) => void;
}

/**
 * A tool the model can call. `execute` may throw a DshError (the registry turns it into an
 * `isError` result); expected failures should already be `isError` results.
 */
export interface Tool<Schema extends v.GenericSchema = v.GenericSchema, Details = unknown> {
  readonly name: string;
  readonly description: string;
  readonly input: Schema;
  /**
   * The JSON Schema offered to the model when it is not the input schema's own form: a tool
   * whose arguments another program defines and validates (an MCP server's tool).
   */
  readonly parameters?: Readonly<Record<string, unknown>>;
  execute(input: v.InferOutput<Schema>, ctx: ToolContext): Promise<ToolResult<Details>>;
  /** Whether the tool is offered to the model in this session; always when absent. */
  available?(ctx: AvailabilityContext): boolean;
  /** How the call shows before it runs. Must not throw or touch the disk. */
  presentCall?(input: v.InferOutput<Schema>, ctx: PresentContext): RenderIntent;
  /** How the call shows once it has a result. */
  presentResult?(
    input: v.InferOutput<Schema>,
    result: ToolResult<Details>,
    ctx: PresentContext,
  ): RenderIntent;
}

/** What a tool may consult to decide whether it is offered in a session. */
export interface AvailabilityContext {
  readonly sessionId: string;
}

export interface PresentContext {
  readonly cwd: string;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every input type
export type AnyTool = Tool<any, any>;

/** The outcome of running one model tool call through the registry. */
export interface ExecutedCall {
  readonly result: ToolResult;
  readonly intent: RenderIntent;
}

export interface ToolRegistry {
  readonly names: readonly string[];
  /**
   * JSON Schema definitions generated from the same valibot schemas that validate inputs,
   * without the tools that are not available in the given session.
   */
  definitions(ctx?: AvailabilityContext): readonly ToolDefinition[];
  /**
   * The call's render intent from its raw JSON arguments; unknown tools and invalid inputs
   * get the generic fallback. Never throws.
   */
  presentCall(name: string, rawArguments: string, ctx: PresentContext): RenderIntent;
  /**
   * Parses and validates the arguments, runs the tool, presents the result. Never throws:
   * unknown tools, bad JSON, invalid inputs and thrown errors become `isError` results.
   */
  execute(name: string, rawArguments: string, ctx: ToolContext): Promise<ExecutedCall>;
}
