/**
 * A stdio "MCP server" that misbehaves, for the start-up failure tests; it imports nothing
 * heavy, so it fails at once. `exit`: says why on stderr and exits 3. `silent`: starts a child
 * in its process group, writes both pids to `MCP_TEST_LOG`, reads its input and never answers (it ends with its input).
 */
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const mode = process.argv[2];
if (mode === "exit") {
  process.stderr.write("config missing: cannot start\n");
  process.exit(3);
}
const child = spawn("sleep", ["1000"], { stdio: "ignore" });
const logPath = process.env.MCP_TEST_LOG;
if (logPath !== undefined) {
  appendFileSync(
    logPath,
    `${JSON.stringify({ started: process.pid, child: child.pid, env: {} })}\n`,
  );
}
process.stdin.on("data", () => undefined);
process.stdin.on("end", () => {
  child.kill();
  process.exit(0);
});
