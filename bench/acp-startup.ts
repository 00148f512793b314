/**
 * `dsh acp` startup against a minimal SDK-only agent compiled the same way: spawn → initialize
 * response, `session/new` round trip, exit after stdin EOF when idle, and idle RSS. Medians of
 * many runs. Targets (issue 4): initialize within 1.25× of the minimal agent, session/new
 * under 5 ms, exit within 50 ms of EOF, idle RSS under 40 MB.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryPath, ensureBinary } from "../tests/support/binary.ts";
import { median, report } from "./stats.ts";

const RUNS = 30;
const root = mkdtempSync(join(tmpdir(), "dsh-bench-acp-"));
const minimal = join(root, "minimal-agent");
const built = Bun.spawnSync(
  ["bun", "build", join(import.meta.dir, "fixtures", "minimal-agent.ts"), "--compile", "--minify", "--bytecode", "--format=esm", "--outfile", minimal],
  { stdout: "ignore", stderr: "inherit" },
);
if (built.exitCode !== 0) throw new Error("building the minimal agent failed");
await ensureBinary();
writeFileSync(join(root, "config.toml"), "");
const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: root,
  DSH_HOME: join(root, "home"),
  DSH_CONFIG: join(root, "config.toml"),
  DSH_BASE_URL: "http://127.0.0.1:9",
  DSH_API_KEY: "bench",
};

/** One agent process, spoken to line by line. */
function start(command: string[]) {
  const proc = Bun.spawn(command, { cwd: root, env, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let id = 0;
  const nextLine = async (): Promise<string> => {
    for (;;) {
      const nl = buffer.indexOf("\n");
      if (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        return line;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("agent closed stdout");
      buffer += decoder.decode(value, { stream: true });
    }
  };
  const request = async (method: string, params: unknown): Promise<string> => {
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: id++, method, params })}\n`);
    await proc.stdin.flush();
    return nextLine();
  };
  return { proc, request };
}

const initialize = { protocolVersion: 1, clientCapabilities: { _meta: { terminal_output: true } } };

async function measure(label: string, command: string[]) {
  const init: number[] = [];
  const exit: number[] = [];
  const rss: number[] = [];
  const sessionNew: number[] = [];
  for (let run = 0; run < RUNS + 3; run++) {
    const started = performance.now();
    const agent = start(command);
    await agent.request("initialize", initialize);
    const initMs = performance.now() - started;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const line = await agent.request("session/new", { cwd: root, mcpServers: [] });
      if (!line.includes("sessionId")) throw new Error(`session/new failed: ${line}`);
      if (run >= 3) sessionNew.push(performance.now() - t);
    }
    await Bun.sleep(200); // idle: let startup garbage settle before reading RSS
    const status = readFileSync(`/proc/${agent.proc.pid}/status`, "utf8");
    const kb = Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
    const eof = performance.now();
    agent.proc.stdin.end();
    if ((await agent.proc.exited) !== 0) throw new Error(`${label} did not exit 0`);
    if (run < 3) continue;
    init.push(initMs);
    exit.push(performance.now() - eof);
    rss.push(kb / 1024);
  }
  report(`${label}: spawn → initialize response`, init);
  report(`${label}: session/new round trip`, sessionNew);
  report(`${label}: stdin EOF → exit`, exit);
  console.log(`${label}: idle RSS after 5 sessions: median ${median(rss).toFixed(1)} MB`);
  return median(init);
}

try {
  const base = await measure("minimal SDK agent", [minimal]);
  const dsh = await measure("dsh acp", [binaryPath, "acp"]);
  console.log(`dsh / minimal initialize ratio: ${(dsh / base).toFixed(2)} (target ≤ 1.25)`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
