/** Start time of the compiled binary: `dsh --version`, spawn to exit. */
import { binaryPath } from "../tests/support/binary.ts";
import { emit, size } from "./lib/figures.ts";
import { report, timeRuns } from "./stats.ts";

const times = await timeRuns(size(40, 3), size(5, 1), async () => {
  const proc = Bun.spawn([binaryPath, "--version"], { stdout: "ignore", stderr: "inherit" });
  if ((await proc.exited) !== 0) throw new Error("dsh --version failed");
});
report("dsh --version", times);
emit([{ name: "dsh --version", unit: "ms", samples: times }]);
