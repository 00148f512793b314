/**
 * Runs every benchmark in this folder, one after another (they measure wall time, so never in
 * parallel), collects their figures, prints one table (figure, median, min–max, target, ratio
 * to the floor measured in the same run) and writes it as JSON under `bench/results/`.
 *
 *   bun run bench               every benchmark, full size
 *   bun run bench search        the ones whose file name starts with "search"
 *   bun run bench --quick       small inputs and few runs: proves the benchmarks work, judges nothing
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary } from "../tests/support/binary.ts";
import { type Figure, QUICK, collect } from "./lib/figures.ts";
import { median } from "./stats.ts";

const only = Bun.argv.slice(2).find((arg) => !arg.startsWith("--"));
await ensureBinary();
const files = readdirSync(import.meta.dir)
  .filter((name) => name.endsWith(".ts") && name !== "index.ts" && name !== "stats.ts")
  .filter((name) => only === undefined || name.startsWith(only))
  .sort();
let failed = false;
const all: { bench: string; figure: Figure }[] = [];
for (const name of files) {
  console.log(`\n## ${name}`);
  const proc = Bun.spawn(["bun", join(import.meta.dir, name), ...(QUICK ? ["--quick"] : [])], {
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, ...(QUICK ? { DSH_BENCH_QUICK: "1" } : {}) },
  });
  const output = await new Response(proc.stdout).text();
  process.stdout.write(
    output
      .split("\n")
      .filter((line) => !line.startsWith("DSH_BENCH "))
      .join("\n"),
  );
  if ((await proc.exited) !== 0) {
    failed = true;
    console.log(`${name} failed`);
  }
  for (const figure of collect(output)) all.push({ bench: name, figure });
}

const rows = all.map(({ bench, figure }) => {
  const m = median(figure.samples);
  const floor = figure.floor === undefined ? undefined : median(figure.floor);
  const ratio = floor === undefined || floor === 0 ? undefined : m / floor;
  const judged = figure.target?.of === "ratio" ? ratio : m;
  const met =
    figure.target === undefined || judged === undefined
      ? undefined
      : figure.target.op === "<="
        ? judged <= figure.target.value
        : judged >= figure.target.value;
  return {
    bench,
    figure: figure.name,
    unit: figure.unit,
    median: m,
    min: Math.min(...figure.samples),
    max: Math.max(...figure.samples),
    n: figure.samples.length,
    ...(floor === undefined ? {} : { floor }),
    ...(ratio === undefined ? {} : { ratio }),
    ...(figure.target === undefined ? {} : { target: figure.target }),
    ...(met === undefined ? {} : { met }),
  };
});

const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(1));
const targetText = (row: (typeof rows)[number]) =>
  row.target === undefined
    ? ""
    : `${row.target.op} ${row.target.value}${row.target.of === "ratio" ? "×" : ` ${row.unit}`}${row.met === undefined ? "" : row.met ? " ✓" : " ✗"}`;
const table = [
  ["figure", "median", "min–max", "target", "ratio to floor"],
  ...rows.map((row) => [
    row.figure,
    `${fmt(row.median)} ${row.unit}`,
    `${fmt(row.min)}–${fmt(row.max)}`,
    targetText(row),
    row.ratio === undefined
      ? ""
      : `${row.ratio.toFixed(2)}× (floor ${fmt(row.floor ?? 0)} ${row.unit})`,
  ]),
];
const widths =
  table[0]?.map((_, col) => Math.max(...table.map((line) => (line[col] ?? "").length))) ?? [];
console.log(`\n## figures${QUICK ? " (--quick: small inputs, not judged)" : ""}\n`);
for (const [i, line] of table.entries()) {
  console.log(line.map((cell, col) => cell.padEnd(widths[col] ?? 0)).join(" | "));
  if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
}

const results = join(import.meta.dir, "results");
mkdirSync(results, { recursive: true });
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const body = `${JSON.stringify({ at: new Date().toISOString(), quick: QUICK, figures: rows }, null, 2)}\n`;
writeFileSync(join(results, QUICK ? "quick.json" : `${stamp}.json`), body);
if (!QUICK) writeFileSync(join(results, "latest.json"), body);
process.exit(failed ? 1 : 0);
