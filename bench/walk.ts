/**
 * The walk for `.git` entries that runs before and after every `workspace-write` command, alone,
 * on a 31,000-file git repository (`lib/git-tree.ts`): the first walk in a process (nothing
 * kept) against GNU find doing the same search (`find DIR -name .git -prune`), and a walk with
 * the listings of an earlier one kept, as between two commands.
 * Run: bun bench/walk.ts [N]
 */
import { walkGitEntries } from "../src/exec/git-entries.ts";
import type { GitEntryCache } from "../src/exec/git-entries.ts";
import { loadDirCalls } from "../src/exec/load-dir-calls.ts";
import { emit, size } from "./lib/figures.ts";
import { gitTree } from "./lib/git-tree.ts";
import { median } from "./stats.ts";

const runs = size(Number(process.argv[2] ?? 30), 3);
const repo = gitTree();
const calls = await loadDirCalls();
// Listings are kept once two seconds old; the tree is older than that, so the clock is true.
const cache: GitEntryCache = new Map();

function timed(work: () => void): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

const find = () => {
  const done = Bun.spawnSync(["find", repo.dir, "-name", ".git", "-prune"], { stdout: "ignore" });
  if (done.exitCode !== 0) throw new Error("find failed");
};
const walk = (kept?: GitEntryCache) => () => {
  const result = walkGitEntries(repo.dir, { calls, cache: kept });
  if (result.entries.length !== 1 || result.unchecked.length > 0) {
    throw new Error(`unexpected walk: ${JSON.stringify(result.unchecked)}`);
  }
};

walk(cache)();
const cold: number[] = [];
const floor: number[] = [];
const kept: number[] = [];
for (let i = 0; i < runs; i++) {
  cold.push(timed(walk()));
  floor.push(timed(find));
  kept.push(timed(walk(cache)));
}
console.log(`${repo.files} files, runs: ${runs} each`);
console.log(`median walk, nothing kept:   ${median(cold).toFixed(1)} ms`);
console.log(`median find -name .git:      ${median(floor).toFixed(1)} ms`);
console.log(`median walk, listings kept:  ${median(kept).toFixed(1)} ms`);
emit([
  {
    name: "walk for .git entries, 31,000-file repository, first in a process (floor: find)",
    unit: "ms",
    samples: cold,
    floor,
  },
  {
    name: "walk for .git entries, 31,000-file repository, listings kept (between commands)",
    unit: "ms",
    samples: kept,
  },
]);
