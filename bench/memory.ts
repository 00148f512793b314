/**
 * Memory of `dsh acp`: RSS after `initialize` (against the SDK-only agent), what each idle
 * session adds over 100 sessions (target < 0.5 MB each), what RSS keeps of each session opened
 * and closed (target ≤ 2 KB), and RSS over 1,000 sequential turns of one session against the
 * test model server, in three fresh processes: after the first 100 turns, after 1,000, and
 * what a turn adds over turns 500–1,000 (target < 10 KB). RSS is read every 10 turns once the
 * process went idle, through turn 1,250; the figure is the least-squares slope over turns
 * 500–1,000 of what the process holds from each read on (the least of that read and every
 * later one), because RSS between two full collections climbs by megabytes of garbage and
 * falls back, which two reads (or a slope through the reads themselves) take for growth or
 * shrinkage.
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
import { slope } from "./stats.ts";

const SESSIONS = size(100, 10);
const CLOSED = size(500, 20);
const TURNS = size(1_000, 20);
const EARLY = TURNS / 10;
/** Turns run past `TURNS` so that what the last reads hold is known (see `heldFromThenOn`). */
const AFTER = TURNS / 4;
const TURN_RUNS = size(3, 1);
const SAMPLE_EVERY = size(10, 2);
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

/**
 * RSS once the process has been idle long enough for it to stop moving: polled every 100 ms
 * until it has not changed for 500 ms (at most 5 s). Bun collects when its event loop goes
 * idle, so an RSS read in the middle of turns says mostly how long ago that was.
 */
async function idleRssMb(pid: number): Promise<number> {
  const start = performance.now();
  let last = rssMb(pid);
  let since = start;
  while (performance.now() - start < 5_000) {
    await Bun.sleep(100);
    const now = rssMb(pid);
    if (now !== last) {
      last = now;
      since = performance.now();
    } else if (performance.now() - since >= 500) {
      break;
    }
  }
  return last;
}

/** For each of `ys`, the least of it and every later one: what is held from then on. */
function heldFromThenOn(ys: readonly number[]): number[] {
  const held = ys.slice();
  for (let i = held.length - 2; i >= 0; i--) held[i] = Math.min(held[i] ?? 0, held[i + 1] ?? 0);
  return held;
}

interface TurnRun {
  readonly early: number;
  readonly late: number;
  /**
   * RSS a turn adds over the second half, in KB: the least-squares slope of the least idle
   * RSS from each sample on.
   */
  readonly kbPerTurn: number;
  readonly samples: number;
  readonly logKbPerTurn: number;
}

/**
 * One session of `TURNS` sequential turns and `AFTER` more in a fresh process; from turn
 * `TURNS / 2` on, RSS is read every `SAMPLE_EVERY` turns once the process went idle (see
 * `idleRssMb`). The slope is of the reads up to turn `TURNS`, each as the least of it and every
 * later read: a read on a climb of garbage is held to what a later collection came down to.
 */
function turnsRun(): Promise<TurnRun> {
  return withAgent([binaryPath, "acp"], async (agent, pid) => {
    const { sessionId } = await agent.request(acp.methods.agent.session.new, {
      cwd: root,
      mcpServers: [],
    });
    let early = 0;
    const xs: number[] = [];
    const ys: number[] = [];
    for (let i = 1; i <= TURNS + AFTER; i++) {
      server.script(textTurn(`answer ${i} `.repeat(20)));
      await agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: `question ${i}` }],
      });
      if (i === EARLY) early = await idleRssMb(pid);
      if (i >= TURNS / 2 && i % SAMPLE_EVERY === 0) {
        xs.push(i);
        ys.push(await idleRssMb(pid));
      }
    }
    const logBytes = statSync(join(root, "home", "sessions", `${sessionId}.jsonl`)).size;
    const inWindow = xs.filter((x) => x <= TURNS).length;
    return {
      early,
      late: ys[inWindow - 1] ?? 0,
      kbPerTurn: slope(xs.slice(0, inWindow), heldFromThenOn(ys).slice(0, inWindow)) * 1024,
      samples: inWindow,
      logKbPerTurn: logBytes / 1024 / (TURNS + AFTER),
    };
  });
}

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
  const turnRuns: TurnRun[] = [];
  for (let run = 0; run < TURN_RUNS; run++) turnRuns.push(await turnsRun());
  const first = turnRuns[0] as TurnRun;
  const slopes = turnRuns.map((run) => run.kbPerTurn);
  console.log(
    `RSS after ${EARLY} turns ${first.early.toFixed(1)} MB, after ${TURNS} ${first.late.toFixed(1)} MB (first run)`,
  );
  console.log(
    `  RSS a turn adds over turns ${TURNS / 2}–${TURNS} (least squares of the least idle RSS from each of ${first.samples} reads on, through turn ${TURNS + AFTER}): ${slopes.map((kb) => kb.toFixed(2)).join(", ")} KB; the log holds ${first.logKbPerTurn.toFixed(1)} KB a turn on disk`,
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
      name: `RSS after ${TURNS.toLocaleString("en")} turns in one session (floor: after ${EARLY})`,
      unit: "MB",
      samples: turnRuns.map((run) => run.late),
      floor: turnRuns.map((run) => run.early),
    },
    {
      name: `RSS a turn adds over turns ${(TURNS / 2).toLocaleString("en")}–${TURNS.toLocaleString("en")}`,
      unit: "KB",
      samples: slopes,
      target: { op: "<=", value: 10 },
    },
  ]);
} finally {
  rmSync(root, { recursive: true, force: true });
}
