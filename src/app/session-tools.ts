/**
 * What a session starts for tools of its own: its MCP servers, the config file's merged with the
 * editor's (the session's entry wins a name), none when neither names one.
 */
import type { SessionToolsRequest } from "../agent/service.ts";
import type { Logger } from "../log.ts";
import { startMcpServers } from "../mcp/servers.ts";
import { type McpOptions, type McpServers, mergeServers } from "../mcp/types.ts";

export function mcpSessionTools(options: McpOptions, logger: Logger) {
  return (request: SessionToolsRequest): McpServers | undefined => {
    const specs = mergeServers(options.servers, request.servers);
    if (specs.length === 0) return undefined;
    return startMcpServers({
      specs,
      cwd: request.cwd,
      options,
      logger,
      report: request.report,
      onPromptsChanged: request.onPromptsChanged,
    });
  };
}
