/**
 * How a benchmark reports: each figure with its samples, its target and, where it has one,
 * the floor it is measured against in the same run. `bun run bench` collects them from every
 * benchmark (one `DSH_BENCH` line each on stdout), prints one table and writes JSON.
 */

export interface Target {
  /** `<=`: lower is better and must not pass `value`; `>=`: the other way. */
  readonly op: "<=" | ">=";
  readonly value: number;
  /** What the target applies to: the median (default) or the ratio to the floor. */
  readonly of?: "median" | "ratio";
}

export interface Figure {
  readonly name: string;
  readonly unit: string;
  readonly samples: readonly number[];
  /** The same measure of the floor (a bare program), interleaved with `samples`. */
  readonly floor?: readonly number[];
  readonly target?: Target;
}

/** `--quick`: fewer runs, smaller inputs; the figures only prove the benchmarks still work. */
export const QUICK = Bun.argv.includes("--quick") || process.env.DSH_BENCH_QUICK === "1";

/** Picks the full or the quick size of an input or a run count. */
export function size(full: number, quick: number): number {
  return QUICK ? quick : full;
}

const MARK = "DSH_BENCH ";

/** Prints the figures for `bench/index.ts` to collect (and a readable line for each). */
export function emit(figures: readonly Figure[]): void {
  for (const figure of figures) console.log(`${MARK}${JSON.stringify(figure)}`);
}

/** The figures in a benchmark's output. */
export function collect(output: string): Figure[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith(MARK))
    .map((line) => JSON.parse(line.slice(MARK.length)) as Figure);
}
