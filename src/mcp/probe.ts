/** Starts servers once, to see where each gets: what `dsh doctor` shows. */
import type { Logger } from "../log.ts";
import { startMcpServers } from "./servers.ts";
import type { McpOptions, McpServerStatus } from "./types.ts";

/** Starts every server of `options` in `cwd`, waits for each to be up or failed, stops them. */
export async function probeMcpServers(
  options: McpOptions,
  cwd: string,
  logger: Logger,
  signal: AbortSignal,
): Promise<McpServerStatus[]> {
  if (options.servers.length === 0) return [];
  await using servers = startMcpServers({
    specs: options.servers,
    cwd,
    options,
    logger,
    report: () => undefined,
  });
  await servers.started(signal);
  return servers.statuses();
}
