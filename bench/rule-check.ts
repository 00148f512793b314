/**
 * What a command rule check costs: the first check of a process (it loads bash's grammar, from
 * the executable) and a warm check (parse, match, and the rules file read) of a typical line
 * and of a 100-command `&&` chain (wall time, and for the typical line CPU time too, which load
 * elsewhere on a shared machine changes far less). Fresh processes of a fixture compiled with
 * the project's flags, since the first check happens once per process.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../scripts/build.ts";
import { emit, size } from "./lib/figures.ts";
import { median, report } from "./stats.ts";

const PROCESSES = size(20, 2);
const WARM = size(1000, 20);
const root = mkdtempSync(join(tmpdir(), "dsh-bench-rules-"));
try {
  const fixture = join(root, "rule-check");
  await compile(join(import.meta.dir, "fixtures", "rule-check.ts"), fixture);
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(home);
  const rules = ["npm test", "tail", "git status"].map((words) => ({
    type: "command",
    words: words.split(" "),
    where: "outside_sandbox",
  }));
  writeFileSync(
    join(home, "rules.json"),
    JSON.stringify({ version: 1, projects: { [project]: rules } }),
  );
  const first: number[] = [];
  const typical: number[] = [];
  const typicalCpu: number[] = [];
  const long: number[] = [];
  for (let i = 0; i < PROCESSES; i++) {
    const proc = Bun.spawn([fixture, home, project, String(WARM)], { stderr: "inherit" });
    const out = await new Response(proc.stdout).text();
    if ((await proc.exited) !== 0) throw new Error("the rule-check fixture failed");
    const run = JSON.parse(out) as {
      first: number;
      warm: { typical: number; long: number };
      cpu: { typical: number };
    };
    first.push(run.first);
    typical.push(run.warm.typical);
    typicalCpu.push(run.cpu.typical);
    long.push(run.warm.long);
  }
  report("first rule check in a process (loads bash's grammar)", first);
  console.log(`warm rule check, typical line: median ${median(typical).toFixed(0)} µs`);
  console.log(`warm rule check, 100 commands joined by &&: median ${median(long).toFixed(0)} µs`);
  emit([
    { name: "rule check, first in a process (loads bash's grammar)", unit: "ms", samples: first },
    {
      name: "rule check, warm: `npm test 2>&1 | tail -n 20 && git status --short`",
      unit: "µs",
      samples: typical,
    },
    { name: "rule check, warm, CPU time: the same line", unit: "µs", samples: typicalCpu },
    { name: "rule check, warm: 100 commands joined by &&", unit: "µs", samples: long },
  ]);
} finally {
  rmSync(root, { recursive: true, force: true });
}
