/**
 * grep and glob against ripgrep on the search tree (`lib/search-tree.ts`: ~44,000 files, a
 * gitignored `target/` of 16,000): the same patterns, through the tools' own code path,
 * interleaved so load on the machine hits both alike; and the first call of a fresh process
 * (`fixtures/search-once.ts`, compiled with the project's flags: the tool made and called once,
 * as a `dsh exec`'s first grep or glob), against a fresh rg. Targets: within 1.5× of rg.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../scripts/build.ts";
import { createGlobTool } from "../src/tools/glob.ts";
import { createGrepTool } from "../src/tools/grep.ts";
import { secretPlacesOf } from "../src/file-safety/credential-paths.ts";
import { toolContext } from "../tests/tools/harness.ts";
import { emit, size } from "./lib/figures.ts";
import { searchTree } from "./lib/search-tree.ts";

const rg = Bun.which("rg");
if (rg === null) {
  console.log("search: rg is not installed (apt install ripgrep); skipped");
  process.exit(0);
}
const tree = searchTree();
const secrets = secretPlacesOf({ home: "/nonexistent-home" });
const grep = createGrepTool({ secrets });
const glob = createGlobTool({ secrets });
const ctx = toolContext(tree.dir);
const runs = size(9, 2);

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function ripgrep(args: string[]): Promise<void> {
  const proc = Bun.spawn([rg as string, ...args], {
    cwd: tree.dir,
    stdout: "ignore",
    stderr: "ignore",
  });
  await proc.exited;
}

// A pattern no file holds (every file read and matched), and one that hits the match cap.
const cases = [
  {
    name: "grep, no match",
    tool: () => grep.execute({ pattern: "zq_never_[0-9]{4}" }, ctx),
    rg: ["-l", "zq_never_[0-9]{4}", "."],
  },
  {
    name: "grep, many matches",
    tool: () => grep.execute({ pattern: "export function" }, ctx),
    rg: ["-m", "200", "export function", "."],
  },
  {
    name: "glob **/*.ts",
    tool: () => glob.execute({ pattern: "**/*.ts" }, ctx),
    rg: ["--files", "-g", "*.ts"],
  },
];

const figures = [];
for (const c of cases) {
  await c.tool();
  await ripgrep(c.rg);
  const ours: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < runs; i++) {
    ours.push(await timed(c.tool));
    floor.push(await timed(() => ripgrep(c.rg)));
  }
  figures.push({
    name: `${c.name} (${tree.files} files)`,
    unit: "ms",
    samples: ours,
    floor,
    target: { op: "<=" as const, value: 1.5, of: "ratio" as const },
  });
}
// First calls: a fresh process each, its call timed from inside it.
const root = mkdtempSync(join(tmpdir(), "dsh-bench-search-"));
try {
  const once = join(root, "search-once");
  await compile(join(import.meta.dir, "fixtures", "search-once.ts"), once);
  const firstCall = async (kind: string, pattern: string) => {
    const proc = Bun.spawn([once, kind, tree.dir, pattern], { stdout: "pipe", stderr: "inherit" });
    const out = await new Response(proc.stdout).text();
    if ((await proc.exited) !== 0) throw new Error(`search-once ${kind} failed`);
    return Number(out);
  };
  const cold = [
    { name: "grep, no match", kind: "grep", pattern: "zq_never_[0-9]{4}", rg: cases[0]?.rg },
    { name: "glob **/*.ts", kind: "glob", pattern: "**/*.ts", rg: cases[2]?.rg },
  ];
  for (const c of cold) {
    const ours: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < runs; i++) {
      ours.push(await firstCall(c.kind, c.pattern));
      floor.push(await timed(() => ripgrep(c.rg ?? [])));
    }
    figures.push({
      name: `${c.name}, first call in a process (${tree.files} files)`,
      unit: "ms",
      samples: ours,
      floor,
      target: { op: "<=" as const, value: 1.5, of: "ratio" as const },
    });
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
emit(figures);
