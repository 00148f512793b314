/**
 * Helpers of the MCP suites: the test stdio server as an ACP `mcpServers` entry or a config
 * table, what its log file says, and whether a process still runs.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import * as v from "valibot";
import { processArgvs } from "../exec/helpers.ts";
import type { RecordedRequest } from "../support/model-server.ts";

export const STDIO_SERVER = join(import.meta.dir, "..", "support", "mcp-stdio-server.ts");

/** The stdio test server as the editor passes it. */
export function stdioServer(name: string, env: Record<string, string> = {}): acp.McpServerStdio {
  return {
    name,
    command: process.execPath,
    args: [STDIO_SERVER, name],
    env: Object.entries(env).map(([key, value]) => ({ name: key, value })),
  };
}

export const BAD_SERVER = join(import.meta.dir, "..", "support", "mcp-bad-server.ts");

/** The misbehaving server (`exit` or `silent`) as the editor passes it. */
export function badServer(
  name: string,
  mode: "exit" | "silent",
  env: Record<string, string> = {},
): acp.McpServerStdio {
  return {
    name,
    command: process.execPath,
    args: [BAD_SERVER, mode],
    env: Object.entries(env).map(([key, value]) => ({ name: key, value })),
  };
}

/** The stdio test server as a `[mcp_servers.NAME]` table. */
export function stdioTable(name: string, env: Record<string, string> = {}): string {
  const pairs = Object.entries(env)
    .map(([key, value]) => `${key} = ${JSON.stringify(value)}`)
    .join(", ");
  return [
    `[mcp_servers.${name}]`,
    `command = ${JSON.stringify(process.execPath)}`,
    `args = ${JSON.stringify([STDIO_SERVER, name])}`,
    `env = { ${pairs} }`,
    "",
  ].join("\n");
}

const LogLine = v.union([
  v.object({
    started: v.number(),
    child: v.number(),
    env: v.record(v.string(), v.string()),
  }),
  v.object({ call: v.object({ tool: v.string(), args: v.unknown() }) }),
]);
type LogLine = v.InferOutput<typeof LogLine>;

/** What the server wrote to its log: its start (pid, child, env) and the calls it ran. */
export function serverLog(path: string) {
  const lines: LogLine[] = existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => v.parse(LogLine, JSON.parse(line)))
    : [];
  const starts = lines.flatMap((line) => ("started" in line ? [line] : []));
  const calls = lines.flatMap((line) => ("call" in line ? [line.call] : []));
  return { starts, calls };
}

/** True while `pid` is a process that has not exited (a zombie has exited). */
export function isRunning(pid: number): boolean {
  if (!existsSync("/proc/self")) {
    // No /proc (macOS): ps tells the state, Z for a zombie; nothing for a reaped process.
    const state = Bun.spawnSync(["/bin/ps", "-o", "stat=", "-p", String(pid)]).stdout.toString();
    return state.trim() !== "" && !state.trim().startsWith("Z");
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The state follows the parenthesised command name, which may itself hold spaces.
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Pids of running processes whose command line has `word` as one of its arguments. */
export function processesWithArgument(word: string): number[] {
  return processArgvs()
    .filter(({ pid, argv }) => argv.includes(word) && isRunning(pid))
    .map(({ pid }) => pid);
}

/** The tool names a model request offered. */
export function offeredTools(request: RecordedRequest | undefined): string[] {
  const tools = v.safeParse(
    v.array(v.object({ function: v.object({ name: v.string() }) })),
    request?.body.tools,
  );
  return tools.success ? tools.output.map((tool) => tool.function.name) : [];
}

/** The JSON Schema a model request offered for `name`. */
export function offeredSchema(request: RecordedRequest | undefined, name: string): unknown {
  const tools = v.safeParse(
    v.array(v.object({ function: v.object({ name: v.string(), parameters: v.unknown() }) })),
    request?.body.tools,
  );
  return tools.success
    ? tools.output.find((tool) => tool.function.name === name)?.function.parameters
    : undefined;
}

/** The tool messages of a model request, by call id. */
export function toolMessages(request: RecordedRequest | undefined): Record<string, string> {
  const messages = v.safeParse(
    v.array(
      v.looseObject({
        role: v.string(),
        tool_call_id: v.optional(v.string()),
        content: v.unknown(),
      }),
    ),
    request?.body.messages,
  );
  if (!messages.success) return {};
  return Object.fromEntries(
    messages.output
      .filter((m) => m.role === "tool" && m.tool_call_id !== undefined)
      .map((m) => [
        m.tool_call_id,
        typeof m.content === "string" ? m.content : JSON.stringify(m.content),
      ]),
  );
}
