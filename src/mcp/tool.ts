/**
 * An MCP server's tool as a dsh tool: offered as `mcp__<server>__<tool>` with its sanitised
 * input schema, shown with a generic render intent, and called only after the approval
 * policy allows it (servers run outside the sandbox, as the user).
 */
import * as v from "valibot";
import type { ToolKind } from "../render/intent.ts";
import type { AnyTool, RenderIntent, ToolContext, ToolResult } from "../tools/types.ts";
import { mcpToolName } from "./names.ts";
import { sanitizeInputSchema } from "./schema.ts";

/** What dsh needs of a tool the server listed. */
export interface McpToolInfo {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: unknown;
  readonly annotations?: {
    readonly title?: string;
    readonly readOnlyHint?: boolean;
    readonly destructiveHint?: boolean;
  };
}

export interface McpToolDeps {
  readonly server: string;
  readonly info: McpToolInfo;
  /** Runs the call on the server; never throws except for an abort of `signal`. */
  readonly call: (args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult>;
}

/** Longest description offered; a server's longer text is cut (it is sent on every request). */
const MAX_DESCRIPTION = 4000;

/** Arguments are a JSON object; what it holds is the server's to validate. */
const McpArguments = v.record(v.string(), v.unknown());

export function createMcpTool(deps: McpToolDeps): AnyTool {
  const { server, info } = deps;
  const title = info.title ?? info.annotations?.title ?? info.name;
  const kind = kindOf(info);
  const intent = (text: string): RenderIntent => ({ type: "generic", title, kind, text });
  return {
    name: mcpToolName(server, info.name),
    description: (info.description ?? `The ${info.name} tool of the MCP server ${server}.`).slice(
      0,
      MAX_DESCRIPTION,
    ),
    input: McpArguments,
    parameters: sanitizeInputSchema(info.inputSchema),
    presentCall: (input: Record<string, unknown>) => intent(callText(server, info.name, input)),
    presentResult: (_input: Record<string, unknown>, result: ToolResult) => intent(result.output),
    async execute(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
      // Under `never` a call needs no approval (interface.md): it runs unasked.
      if (ctx.knobs.approvalPolicy === "on-request") {
        const decision = await ctx.ask({
          kind: "mcp",
          title: `Call ${info.name} on the MCP server ${server}`,
          reason: "MCP servers run outside the sandbox, as you",
          intent: intent(callText(server, info.name, input)),
          rawInput: input,
          mcpTool: { server, tool: info.name },
          // "Always allow" covers this one tool of this server, in this project.
          subject: { type: "mcp_tool", server, tool: info.name },
          cwd: ctx.cwd,
        });
        if (ctx.signal.aborted) return { isError: true, output: "cancelled" };
        if (decision !== "allow") {
          return {
            isError: true,
            output: `the user rejected calling ${info.name} on the MCP server ${server}; it did not run`,
          };
        }
      }
      return deps.call(input, ctx.signal);
    },
  };
}

/** Read-only and destructive only where the server says so; anything else is `other`. */
function kindOf(info: McpToolInfo): ToolKind {
  if (info.annotations?.readOnlyHint === true) return "read";
  if (info.annotations?.destructiveHint === true) return "edit";
  return "other";
}

function callText(server: string, tool: string, input: Record<string, unknown>): string {
  const args = Object.keys(input).length === 0 ? "" : `\n${JSON.stringify(input, null, 2)}`;
  return `MCP server ${server}, tool ${tool}${args}`;
}
