/** The config file's `[mcp_servers.NAME]` tables (interface.md) and what they become. */
import * as v from "valibot";
import { type McpServerSpec, REMOTE_TRANSPORTS } from "./types.ts";

/**
 * One server: `command` (with `args`, `env`) for stdio, or `url` (with `headers`) for HTTP,
 * streamable with an SSE fallback unless `transport = "sse"` says SSE only. `enabled = false`
 * keeps the table without starting the server.
 */
export const McpServerTable = v.pipe(
  v.strictObject({
    command: v.optional(v.pipe(v.string(), v.nonEmpty("command is empty"))),
    args: v.optional(v.array(v.string())),
    env: v.optional(v.record(v.string(), v.string())),
    url: v.optional(v.pipe(v.string(), v.url("url is not a URL"))),
    headers: v.optional(v.record(v.string(), v.string())),
    transport: v.optional(v.picklist(REMOTE_TRANSPORTS)),
    enabled: v.optional(v.boolean()),
  }),
  v.check(
    (table) => (table.command === undefined) !== (table.url === undefined),
    "a server needs either command (stdio) or url (HTTP), not both",
  ),
  v.check(
    (table) => table.command !== undefined || (table.args === undefined && table.env === undefined),
    "args and env go with command",
  ),
  v.check(
    (table) =>
      table.url !== undefined || (table.headers === undefined && table.transport === undefined),
    "headers and transport go with url",
  ),
);
export type McpServerTable = v.InferOutput<typeof McpServerTable>;

export const McpServerTables = v.record(v.pipe(v.string(), v.nonEmpty()), McpServerTable);

/** The enabled servers of the tables, in file order. */
export function serversOf(tables: Readonly<Record<string, McpServerTable>>): McpServerSpec[] {
  return Object.entries(tables)
    .filter(([, table]) => table.enabled !== false)
    .map(([name, table]): McpServerSpec => {
      if (table.command !== undefined) {
        return {
          transport: "stdio",
          name,
          command: table.command,
          args: table.args ?? [],
          env: table.env ?? {},
        };
      }
      return {
        transport: table.transport ?? "http",
        name,
        url: table.url ?? "",
        headers: table.headers ?? {},
      };
    });
}
