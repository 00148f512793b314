/**
 * The archives `bun run build:all` made (dist/release). Building every target takes a minute
 * or more, so the release suites use what is there; without it they skip and say why. CI runs
 * build:all first and sets DSH_TEST_REQUIRE_RELEASE=1, which turns the skip into a failure.
 */
import { test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { TARGETS, archiveName } from "../../scripts/targets.ts";
import { runIf } from "../support/gate.ts";

export const releaseDir = join(import.meta.dir, "..", "..", "dist", "release");

const missing = TARGETS.map(archiveName).filter(
  (name) => !existsSync(join(releaseDir, name)) || !existsSync(join(releaseDir, `${name}.sha256`)),
);

if (missing.length > 0 && process.env.DSH_TEST_REQUIRE_RELEASE === "1") {
  throw new Error(`DSH_TEST_REQUIRE_RELEASE=1 but dist/release lacks ${missing.join(", ")}`);
}
if (missing.length > 0) {
  console.warn(
    `SKIPPING release archive cases: run bun run build:all first (missing ${missing.join(", ")})`,
  );
}

// CI runs build:all and sets DSH_TEST_REQUIRE_RELEASE=1, which fails instead (above).
export const releaseTest = runIf(
  missing.length === 0,
  test,
  "the release archives are missing: run bun run build:all first",
);

/** SHA-256 (hex) of a file. */
export async function sha256Of(path: string): Promise<string> {
  return new Bun.CryptoHasher("sha256").update(await Bun.file(path).bytes()).digest("hex");
}

/** Runs a command to completion; never throws for a non-zero exit. */
export async function run(
  argv: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(argv, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, stdout, stderr };
}
