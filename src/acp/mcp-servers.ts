/** The editor's `mcpServers` (ACP's stdio, http and sse entries) as dsh's server specs. */
import type * as acp from "@agentclientprotocol/sdk";
import type { McpServerSpec } from "../agent/types.ts";

/**
 * One spec per entry; nothing here can fail a session request. An entry whose command or URL
 * is unusable fails when its server starts, and the user is told then.
 */
export function mcpServerSpecs(servers: readonly acp.McpServer[] | undefined): McpServerSpec[] {
  return (servers ?? []).map((server): McpServerSpec => {
    // ACP tags its remote entries with their transport: REMOTE_TRANSPORTS (src/mcp/types.ts)
    // names the same ones, so a transport dsh does not speak fails the typecheck here.
    if ("type" in server) {
      return {
        transport: server.type,
        name: server.name,
        url: server.url,
        headers: pairs(server.headers),
      };
    }
    return {
      transport: "stdio",
      name: server.name,
      command: server.command,
      args: [...server.args],
      env: pairs(server.env),
    };
  });
}

function pairs(list: readonly { name: string; value: string }[]): Record<string, string> {
  return Object.fromEntries(list.map(({ name, value }) => [name, value]));
}
