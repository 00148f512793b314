/**
 * The compiled `dsh` binary for end-to-end suites. Built once per test process when missing or
 * older than any source file; written to a temp name and renamed so concurrent builds never
 * expose a half-written file.
 */
import { renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { compile } from "../../scripts/build.ts";

const root = join(import.meta.dir, "..", "..");
/** `dist/dsh`, or `dist/dsh.exe` on Windows, where Bun names the executable so. */
export const binaryPath = join(root, "dist", process.platform === "win32" ? "dsh.exe" : "dsh");

let built: Promise<string> | undefined;

/** Resolves with the absolute path of an up-to-date `dist/dsh`. */
export function ensureBinary(): Promise<string> {
  built ??= build();
  return built;
}

async function build(): Promise<string> {
  if (isFresh()) return binaryPath;
  // Ends in .exe on Windows, so that Bun adds no second one.
  const temp = binaryPath.replace(/(\.exe)?$/, `.${process.pid}.tmp$1`);
  await compile(join(root, "index.ts"), temp);
  renameSync(temp, binaryPath);
  return binaryPath;
}

function isFresh(): boolean {
  let binaryTime: number;
  try {
    binaryTime = statSync(binaryPath).mtimeMs;
  } catch {
    return false;
  }
  // One glob per pattern: Bun.Glob does not expand a `**` inside braces.
  for (const pattern of [
    "index.ts",
    "package.json",
    "bun.lock",
    "scripts/build.ts",
    "src/**/*.ts",
  ]) {
    for (const file of new Bun.Glob(pattern).scanSync({ cwd: root })) {
      if (statSync(join(root, file)).mtimeMs > binaryTime) return false;
    }
  }
  return true;
}
