/**
 * Runs every benchmark in this folder, one after another (they measure wall time, so never in
 * parallel). `bun run bench` builds the binary first; `bun run bench startup` runs one.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary } from "../tests/support/binary.ts";

const only = Bun.argv[2];
await ensureBinary();
const files = readdirSync(import.meta.dir)
  .filter((name) => name.endsWith(".ts") && name !== "index.ts" && name !== "stats.ts")
  .filter((name) => only === undefined || name.startsWith(only))
  .sort();
let failed = false;
for (const name of files) {
  console.log(`\n## ${name}`);
  const proc = Bun.spawn(["bun", join(import.meta.dir, name)], {
    stdout: "inherit",
    stderr: "inherit",
  });
  if ((await proc.exited) !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
