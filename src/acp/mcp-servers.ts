/** The editor's `mcpServers` (ACP's stdio, http and sse entries) as dsh's server specs. */
import type * as acp from "@agentclientprotocol/sdk";
import type { McpServerSpec } from "../agent/types.ts";

/**
 * One spec per entry; nothing here can fail a session request. An entry whose command or URL
 * is unusable fails when its server starts, and the user is told then.
 */
export function mcpServerSpecs(servers: readonly acp.McpServer[] | undefined): McpServerSpec[] {
  return (servers ?? []).map((server): McpServerSpec => {
    if ("type" in server && (server.type === "http" || server.type === "sse")) {
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
