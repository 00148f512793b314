/** What `bun run build:all` makes: one archive per target, its checksum, the executable at its root. */
import { describe, expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../../scripts/project.ts";
import { TARGETS, archiveName } from "../../scripts/targets.ts";
import { releaseDir, releaseTest, run, sha256Of } from "./release-dir.ts";

/** The name in a .tar.gz's first header, read without unpacking the rest. */
async function firstTarEntry(path: string): Promise<string> {
  const reader = Bun.file(path).stream().pipeThrough(new DecompressionStream("gzip")).getReader();
  const head = new Uint8Array(512);
  let filled = 0;
  while (filled < head.length) {
    const { done, value } = await reader.read();
    if (done) break;
    const take = value.subarray(0, head.length - filled);
    head.set(take, filled);
    filled += take.length;
  }
  await reader.cancel();
  const name = new TextDecoder().decode(head.subarray(0, 100));
  return name.slice(0, name.indexOf("\0"));
}

describe("build:all archives", () => {
  releaseTest("every target has an archive whose .sha256 file matches it", async () => {
    const checks = await Promise.all(
      TARGETS.map(async (target) => {
        const name = archiveName(target);
        const line = await Bun.file(join(releaseDir, `${name}.sha256`)).text();
        return { name, line, actual: `${await sha256Of(join(releaseDir, name))}  ${name}\n` };
      }),
    );
    for (const check of checks) expect(check.line).toBe(check.actual);
  });

  releaseTest("each archive starts with the executable, at its root", async () => {
    const listings = await Promise.all(
      TARGETS.map(async (target) => {
        const path = join(releaseDir, archiveName(target));
        if (target.archive === "zip") {
          const list = await run(["unzip", "-Z1", path]);
          return { target: target.name, files: list.stdout.trim().split("\n") };
        }
        return { target: target.name, files: [await firstTarEntry(path)] };
      }),
    );
    expect(listings).toEqual(
      TARGETS.map((target) => ({ target: target.name, files: [target.executable] })),
    );
  });

  releaseTest("the linux-x64 archive holds nothing but the executable", async () => {
    const list = await run(["tar", "-tzf", join(releaseDir, "dsh-linux-x64.tar.gz")]);
    expect(list.stdout).toBe("dsh\n");
  });

  releaseTest("the linux-x64 binary names its version, its commit and the product", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-archive-"));
    try {
      await run(["tar", "-xzf", join(releaseDir, "dsh-linux-x64.tar.gz"), "-C", dir]);
      const version = await run([join(dir, "dsh"), "--version"], { env: {} });
      expect(version.code).toBe(0);
      const [first, second] = version.stdout.split("\n");
      expect(first).toMatch(
        new RegExp(`^dsh ${VERSION.replaceAll(".", "\\.")} \\([0-9a-f]{7,}\\)$`),
      );
      expect(second).toContain("the dsh coding agent");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
