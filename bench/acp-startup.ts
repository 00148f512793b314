/**
 * `dsh acp` startup against a minimal SDK-only agent compiled the same way: spawn → initialize
 * response, `session/new` round trip, exit after stdin EOF when idle, and idle RSS. Medians of
 * many runs. The main thread's CPU time up to the initialize response is measured too: other
 * work on a shared machine stretches wall times (and squeezes their ratio towards 1) far more
 * than it changes the CPU time a process needs. Targets (issue 4): initialize within 1.25× of the minimal agent, session/new
 * under 5 ms, exit within 50 ms of EOF, idle RSS under 40 MB.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../scripts/build.ts";
import { binaryPath, ensureBinary } from "../tests/support/binary.ts";
import { emit, size } from "./lib/figures.ts";
import { startLineAgent } from "./lib/line-agent.ts";
import { median, report } from "./stats.ts";

const RUNS = size(30, 3);
const root = mkdtempSync(join(tmpdir(), "dsh-bench-acp-"));
const minimal = join(root, "minimal-agent");
await compile(join(import.meta.dir, "fixtures", "minimal-agent.ts"), minimal);
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
  return startLineAgent(command, { cwd: root, env });
}

const initialize = { protocolVersion: 1, clientCapabilities: { _meta: { terminal_output: true } } };

interface Figures {
  init: number[];
  /** Spawn → `initialize` answered → the first `session/new` answered: what a Zed user waits for. */
  ready: number[];
  initCpu: number[];
  sessionNew: number[];
  exit: number[];
  rss: number[];
}

/** One spawn: initialize, five session/new, idle, RSS, stdin EOF, exit. */
async function once(label: string, command: string[], into: Figures | undefined): Promise<void> {
  const started = performance.now();
  const agent = start(command);
  await agent.request("initialize", initialize);
  into?.init.push(performance.now() - started);
  into?.initCpu.push(mainThreadCpuMs(agent.proc.pid));
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const line = await agent.request("session/new", { cwd: root, mcpServers: [] });
    if (!line.includes("sessionId")) throw new Error(`session/new failed: ${line}`);
    into?.sessionNew.push(performance.now() - t);
    if (i === 0) into?.ready.push(performance.now() - started);
  }
  await Bun.sleep(200); // idle: let startup garbage settle before reading RSS
  const status = readFileSync(`/proc/${agent.proc.pid}/status`, "utf8");
  into?.rss.push(Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024);
  const eof = performance.now();
  agent.proc.stdin.end();
  if ((await agent.proc.exited) !== 0) throw new Error(`${label} did not exit 0`);
  into?.exit.push(performance.now() - eof);
}

/** CPU time the process's main thread has used so far (Linux's scheduler statistics). */
function mainThreadCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8");
  return Number(stat.split(" ")[0]) / 1e6;
}

function print(label: string, f: Figures): void {
  report(`${label}: spawn → initialize response`, f.init);
  report(`${label}: spawn → initialize → first session/new response`, f.ready);
  report(`${label}: main-thread CPU to the initialize response`, f.initCpu);
  report(`${label}: session/new round trip`, f.sessionNew);
  report(`${label}: stdin EOF → exit`, f.exit);
  console.log(`${label}: idle RSS after 5 sessions: median ${median(f.rss).toFixed(1)} MB`);
}

try {
  const agents = [
    { label: "minimal SDK agent", command: [minimal] },
    { label: "dsh acp", command: [binaryPath, "acp"] },
  ];
  const figures = agents.map(
    (): Figures => ({ init: [], ready: [], initCpu: [], sessionNew: [], exit: [], rss: [] }),
  );
  // Interleaved, so load from elsewhere on the machine hits both alike.
  for (let run = 0; run < RUNS + 3; run++) {
    for (const [i, agent] of agents.entries())
      await once(agent.label, agent.command, run < 3 ? undefined : figures[i]);
  }
  for (const [i, agent] of agents.entries()) {
    print(
      agent.label,
      figures[i] ?? { init: [], ready: [], initCpu: [], sessionNew: [], exit: [], rss: [] },
    );
  }
  const ratio = median(figures[1]?.init ?? []) / median(figures[0]?.init ?? []);
  console.log(`dsh / minimal initialize ratio: ${ratio.toFixed(2)} (target ≤ 1.25)`);
  const [floor, dsh] = figures;
  if (floor !== undefined && dsh !== undefined) {
    emit([
      {
        name: "dsh acp: spawn → initialize",
        unit: "ms",
        samples: dsh.init,
        floor: floor.init,
        target: { op: "<=", value: 1.25, of: "ratio" },
      },
      {
        name: "dsh acp: spawn → initialize → first session/new (a ready session)",
        unit: "ms",
        samples: dsh.ready,
        floor: floor.ready,
        target: { op: "<=", value: 1.15, of: "ratio" },
      },
      {
        name: "dsh acp: main-thread CPU to initialize",
        unit: "ms",
        samples: dsh.initCpu,
        floor: floor.initCpu,
      },
      {
        name: "dsh acp: session/new",
        unit: "ms",
        samples: dsh.sessionNew,
        target: { op: "<=", value: 5 },
      },
      {
        name: "dsh acp: stdin EOF → exit (idle)",
        unit: "ms",
        samples: dsh.exit,
        target: { op: "<=", value: 50 },
      },
      {
        name: "dsh acp: idle RSS after 5 sessions",
        unit: "MB",
        samples: dsh.rss,
        floor: floor.rss,
      },
    ]);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
