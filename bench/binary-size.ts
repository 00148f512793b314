/**
 * Size of the compiled `dist/dsh` against a bare Bun program compiled with the same flags:
 * what dsh's own code and dependencies add to the runtime every binary carries.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../scripts/build.ts";
import { binaryPath, ensureBinary } from "../tests/support/binary.ts";
import { emit } from "./lib/figures.ts";

await ensureBinary();
const dir = mkdtempSync(join(tmpdir(), "dsh-bench-size-"));
try {
  const entry = join(dir, "bare.ts");
  writeFileSync(entry, 'process.stdout.write("bare\\n");\n');
  await compile(entry, join(dir, "bare"));
  const mb = (path: string) => statSync(path).size / 1e6;
  const dsh = mb(binaryPath);
  const bare = mb(join(dir, "bare"));
  console.log(
    `dist/dsh ${dsh.toFixed(1)} MB, a bare compiled Bun program ${bare.toFixed(1)} MB (+${(dsh - bare).toFixed(1)} MB)`,
  );
  emit([
    {
      name: "binary size (floor: a bare compiled Bun program)",
      unit: "MB",
      samples: [dsh],
      floor: [bare],
    },
  ]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
