/** `dsh doctor`'s lines for the config file's MCP servers: each started once, then stopped. */
import { homedir } from "node:os";
import type { Config } from "./config.ts";
import { silentLogger } from "../log.ts";
import { probeMcpServers } from "../mcp/probe.ts";
import type { CliIo } from "../cli/io.ts";

export interface McpCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** One check per configured server: ready with its tool count, or why it failed. */
export async function mcpServerChecks(io: CliIo, config: Config): Promise<McpCheck[]> {
  const statuses = await probeMcpServers(
    {
      servers: config.mcp.servers,
      env: io.env,
      home: io.env.HOME || homedir(),
      include: config.env.include,
      allowSecret: config.env.allow_secret,
      startupTimeoutMs: config.mcp.startupTimeoutMs,
      toolTimeoutMs: config.mcp.toolTimeoutMs,
    },
    io.cwd,
    silentLogger,
    AbortSignal.timeout(config.mcp.startupTimeoutMs + 5000),
  );
  return statuses.map((status) => ({
    name: `mcp server ${status.name}`,
    ok: status.state === "ready",
    detail:
      status.state === "ready"
        ? `ready, ${status.tools} tool${status.tools === 1 ? "" : "s"}`
        : `${status.state}: ${status.error ?? "did not start"}`,
  }));
}
