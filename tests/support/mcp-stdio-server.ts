/**
 * The stdio MCP server of the tests, run as `bun mcp-stdio-server.ts NAME`. `MCP_TEST_LOG`
 * names a file that gets one JSON line at start (pid, the child it started, its environment)
 * and one per tool call; `MCP_TEST_STAY=1` keeps it running after its stdin ends;
 * `MCP_TEST_EXTRA_TOOL` names one more echo tool.
 */
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { buildTestServer } from "./mcp-test-tools.ts";

const name = process.argv[2] ?? "test";
const logPath = process.env.MCP_TEST_LOG;
const log = (entry: unknown) => {
  if (logPath !== undefined) appendFileSync(logPath, `${JSON.stringify(entry)}\n`);
};
// A child in the server's process group, so a test can see that the whole group stops.
const child = spawn("sleep", ["1000"], { stdio: "ignore" });
// Like most real servers it ends with its input (dsh gone), taking its child along; a signal
// (dsh stopping the group) ends it without this. `MCP_TEST_STAY=1` makes it one that goes on
// without its input (busy, or careless), so only dsh's supervision can end it.
process.stdin.on("end", () => {
  if (process.env.MCP_TEST_STAY === "1") return;
  child.kill();
  process.exit(0);
});
log({ started: process.pid, child: child.pid, env: process.env });

const server = buildTestServer({
  name,
  record: (call) => log({ call }),
  awkwardName: true,
  ...(process.env.MCP_TEST_EXTRA_TOOL === undefined
    ? {}
    : { extraTool: process.env.MCP_TEST_EXTRA_TOOL }),
});
await server.connect(new StdioServerTransport());
