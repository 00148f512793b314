/**
 * What checkpoints cost per turn on a 30,000-file git repository: the first checkpoint of a
 * session (every file hashed into the shadow store), one of an unchanged tree (on Linux the
 * tree watch reported nothing: no git runs; elsewhere git's index stat data, nothing read
 * again), and one after a small edit (only that file staged again); then the store's size on
 * disk after 100 turns of small edits (a before and an after checkpoint each).
 * Run: bun bench/checkpoint.ts [RUNS]
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSessionCheckpoints } from "../src/checkpoints/session-checkpoints.ts";
import { silentLogger } from "../src/log.ts";
import { emit, size } from "./lib/figures.ts";
import { median } from "./stats.ts";

const FILES = size(30_000, 2_000);
const PER_DIR = 100;
const TURNS = size(100, 10);
const runs = size(Number(process.argv[2] ?? 3), 2);

/** The repository: FILES small source files in folders of PER_DIR, committed by git itself. */
function repository(): string {
  const dir = join(tmpdir(), `dsh-bench-checkpoint-v1-${FILES}`);
  if (existsSync(`${dir}.complete`)) return dir;
  rmSync(dir, { recursive: true, force: true });
  for (let i = 0; i < FILES; i++) {
    const folder = join(dir, "src", `mod${Math.floor(i / PER_DIR)}`);
    if (i % PER_DIR === 0) mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, `file${i}.ts`),
      `export const value${i} = ${i};\n// ${"x".repeat(120)}\n`,
    );
  }
  writeFileSync(join(dir, ".gitignore"), "node_modules/\n");
  const git = (...args: string[]) => {
    const done = Bun.spawnSync(["git", "-c", "user.name=b", "-c", "user.email=b@b", ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GIT_CONFIG_NOSYSTEM: "1" },
    });
    if (done.exitCode !== 0) throw new Error(done.stderr.toString());
  };
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "tree");
  writeFileSync(`${dir}.complete`, "");
  return dir;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

function storeBytes(dir: string): number {
  const out = Bun.spawnSync(["du", "-sb", dir]).stdout.toString();
  return Number(out.split("\t")[0]);
}

const repo = repository();
const edited = join(repo, "src", "mod0", "file0.ts");
const original = readFileSync(edited, "utf8");
const first: number[] = [];
const unchanged: number[] = [];
/** The user's own `git status` of the same tree: the floor an incremental checkpoint is held to. */
const status: number[] = [];
const gitStatus = () => {
  const done = Bun.spawnSync(["git", "status", "--porcelain"], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: repo, GIT_CONFIG_NOSYSTEM: "1" },
    stdout: "ignore",
  });
  if (done.exitCode !== 0) throw new Error("git status failed");
};
const smallEdit: number[] = [];
/** `git status` again after the edit: the floor of the one-edit case, measured beside it. */
const editStatus: number[] = [];
let sizeAfterTurns = 0;
try {
  for (let run = 0; run < runs; run++) {
    const home = mkdtempSync(join(tmpdir(), "dsh-bench-checkpoint-home-"));
    try {
      const checkpoints = openSessionCheckpoints({
        home,
        sessionId: `s${run}`,
        roots: [repo],
        settings: { enabled: true, maxSizeMb: 1024 },
        path: process.env.PATH,
        logger: silentLogger,
      });
      first.push(await timed(() => checkpoints.before("t0")));
      unchanged.push(await timed(() => checkpoints.after("t0")));
      status.push(await timed(async () => gitStatus()));
      writeFileSync(edited, `${original}// run ${run}\n`);
      smallEdit.push(await timed(() => checkpoints.before("t1")));
      editStatus.push(await timed(async () => gitStatus()));
      if (run === 0) {
        for (let turn = 0; turn < TURNS; turn++) {
          const target = join(repo, "src", `mod${turn % 10}`, `file${(turn % 10) * PER_DIR}.ts`);
          await checkpoints.before(`turn${turn}`);
          writeFileSync(target, `${readFileSync(target, "utf8")}// turn ${turn}\n`);
          await checkpoints.after(`turn${turn}`);
        }
        sizeAfterTurns = storeBytes(join(home, "checkpoints")) / (1024 * 1024);
        for (let turn = 0; turn < 10; turn++) {
          const target = join(repo, "src", `mod${turn}`, `file${turn * PER_DIR}.ts`);
          writeFileSync(target, readFileSync(target, "utf8").replace(/(\/\/ turn \d+\n)+$/, ""));
        }
      }
    } finally {
      writeFileSync(edited, original);
      rmSync(home, { recursive: true, force: true });
    }
  }
} finally {
  writeFileSync(edited, original);
}

console.log(`${FILES} files, runs: ${runs}`);
console.log(`median first checkpoint:         ${median(first).toFixed(1)} ms`);
console.log(`median checkpoint, unchanged:    ${median(unchanged).toFixed(1)} ms`);
console.log(`median git status (floor):       ${median(status).toFixed(1)} ms`);
console.log(`median checkpoint, one file edited: ${median(smallEdit).toFixed(1)} ms`);
console.log(`store after ${TURNS} turns of small edits: ${sizeAfterTurns.toFixed(1)} MiB`);
emit([
  {
    name: `checkpoint, ${FILES}-file repository, first of a session`,
    unit: "ms",
    samples: first,
  },
  {
    name: `checkpoint, ${FILES}-file repository, unchanged since the last (floor: git status)`,
    unit: "ms",
    samples: unchanged,
    floor: status,
    target: { op: "<=", value: 0.2, of: "ratio" },
  },
  {
    name: `checkpoint, ${FILES}-file repository, one file edited (floor: git status)`,
    unit: "ms",
    samples: smallEdit,
    floor: editStatus,
    target: { op: "<=", value: 100 },
  },
  {
    name: `checkpoint store after ${TURNS} turns of small edits`,
    unit: "MiB",
    samples: [sizeAfterTurns],
  },
]);
