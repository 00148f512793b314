/**
 * Memory of `dsh acp`: RSS after `initialize` (against the SDK-only agent), what each idle
 * session adds over 100 sessions (target < 0.5 MB each), and RSS after 1,000 sequential turns
 * of one session against the test model server, compared with RSS after the first 100 (no
 * leak: the log grows, memory should not grow with it beyond what the log holds), and what RSS
 * keeps of each session opened and closed (target ≤ 2 KB; a turn: < 10 KB).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { compile } from "../scripts/build.ts";
import { binaryPath, ensureBinary } from "../tests/support/binary.ts";
import { startModelServer, textTurn } from "../tests/support/model-server.ts";
import { benchEnv, withAcpAgent } from "./lib/acp-agent.ts";
import { emit, size } from "./lib/figures.ts";

const SESSIONS = size(100, 10);
const CLOSED = size(500, 20);
const TURNS = size(1_000, 20);
const root = mkdtempSync(join(tmpdir(), "dsh-bench-memory-"));
const minimal = join(root, "minimal-agent");
await compile(join(import.meta.dir, "fixtures", "minimal-agent.ts"), minimal);
await ensureBinary();
writeFileSync(join(root, "config.toml"), "");
await using server = await startModelServer();

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

/** Runs `work` against a fresh agent process; resolves with what it returns. */
function withAgent<T>(
  command: string[],
  work: (agent: acp.ClientContext, pid: number) => Promise<T>,
): Promise<T> {
  return withAcpAgent({ command, cwd: root, env: benchEnv(root, server.url) }, work);
}

/** Settles the process's startup garbage before RSS is read. */
const settle = () => Bun.sleep(200);

try {
  const floorIdle = await withAgent([minimal], async (_agent, pid) => {
    await settle();
    return rssMb(pid);
  });
  const sessions = await withAgent([binaryPath, "acp"], async (agent, pid) => {
    await settle();
    const idle = rssMb(pid);
    // The first session composes the agent: count growth from there.
    await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    await settle();
    const first = rssMb(pid);
    for (let i = 1; i < SESSIONS; i++) {
      await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    }
    Bun.gc?.(true);
    await settle();
    return { idle, perSession: (rssMb(pid) - first) / (SESSIONS - 1) };
  });
  // Sessions opened and closed: a round to warm up, then two rounds; what RSS keeps per session
  // over the two is what a closed session leaves behind.
  const closed = await withAgent([binaryPath, "acp"], async (agent, pid) => {
    const round = async () => {
      for (let i = 0; i < CLOSED; i++) {
        const { sessionId } = await agent.request(acp.methods.agent.session.new, {
          cwd: root,
          mcpServers: [],
        });
        await agent.request(acp.methods.agent.session.close, { sessionId });
      }
      await settle();
      return rssMb(pid);
    };
    const warm = await round();
    await round();
    const after = await round();
    return ((after - warm) * 1024) / (2 * CLOSED);
  });
  const turns = await withAgent([binaryPath, "acp"], async (agent, pid) => {
    const { sessionId } = await agent.request(acp.methods.agent.session.new, {
      cwd: root,
      mcpServers: [],
    });
    let early = 0;
    let half = 0;
    for (let i = 1; i <= TURNS; i++) {
      server.script(textTurn(`answer ${i} `.repeat(20)));
      await agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: `question ${i}` }],
      });
      if (i === Math.floor(TURNS / 10)) early = rssMb(pid);
      if (i === TURNS / 2) {
        await settle();
        half = rssMb(pid);
      }
    }
    await settle();
    const logBytes = statSync(join(root, "home", "sessions", `${sessionId}.jsonl`)).size;
    return { early, half, late: rssMb(pid), logKbPerTurn: logBytes / 1024 / TURNS };
  });
  const lateKbPerTurn = ((turns.late - turns.half) * 1024) / (TURNS / 2);
  console.log(
    `RSS after ${Math.floor(TURNS / 10)} turns ${turns.early.toFixed(1)} MB, after ${TURNS / 2} ${turns.half.toFixed(1)} MB, after ${TURNS} ${turns.late.toFixed(1)} MB`,
  );
  console.log(
    `  ${lateKbPerTurn.toFixed(1)} KB a turn over the second half; the log holds ${turns.logKbPerTurn.toFixed(1)} KB a turn on disk`,
  );
  emit([
    { name: "idle RSS after initialize", unit: "MB", samples: [sessions.idle], floor: [floorIdle] },
    {
      name: `RSS each idle session adds (over ${SESSIONS})`,
      unit: "MB",
      samples: [sessions.perSession],
      target: { op: "<=", value: 0.5 },
    },
    {
      name: `RSS a closed session keeps (${CLOSED} opened and closed, twice)`,
      unit: "KB",
      samples: [closed],
      target: { op: "<=", value: 2 },
    },
    {
      name: `RSS after ${TURNS.toLocaleString("en")} turns in one session (floor: after ${Math.floor(TURNS / 10)})`,
      unit: "MB",
      samples: [turns.late],
      floor: [turns.early],
    },
    {
      name: `RSS a turn adds over turns ${(TURNS / 2).toLocaleString("en")}–${TURNS.toLocaleString("en")}`,
      unit: "KB",
      samples: [lateKbPerTurn],
      target: { op: "<=", value: 10 },
    },
  ]);
} finally {
  rmSync(root, { recursive: true, force: true });
}
