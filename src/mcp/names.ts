/** The names MCP tools are offered to the model under (interface.md: `mcp__<server>__<tool>`). */

/** Longest tool name the OpenAI-compatible APIs accept. */
const MAX_TOOL_NAME = 64;

/**
 * `mcp__<server>__<tool>`, each character outside `[A-Za-z0-9_-]` replaced by `_`, cut to 64
 * characters. Distinct tools may collide after this; the caller keeps the first.
 */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${clean(server)}__${clean(tool)}`.slice(0, MAX_TOOL_NAME);
}

function clean(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}
