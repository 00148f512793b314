/** The Homebrew formula installs the right archive per OS and CPU, and its test runs `dsh --version`. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION, releaseBase } from "../../scripts/project.ts";
import { formula, readAssets } from "../../scripts/release-manifests.ts";
import { releaseDir, releaseTest, run, sha256Of } from "./release-dir.ts";

const root = join(import.meta.dir, "..", "..");

/** `{os, cpu, url, sha256}` for each `on_<os> do / on_<cpu> do url … sha256 … end` block. */
function platforms(rb: string) {
  const found: { os: string; cpu: string; url: string; sha256: string }[] = [];
  for (const os of rb.matchAll(/on_(macos|linux) do\n([\s\S]*?)\n {2}end\n/g)) {
    for (const cpu of (os[2] ?? "").matchAll(
      /on_(arm|intel) do\n\s+url "([^"]+)"\n\s+sha256 "([0-9a-f]{64})"/g,
    )) {
      found.push({ os: os[1] ?? "", cpu: cpu[1] ?? "", url: cpu[2] ?? "", sha256: cpu[3] ?? "" });
    }
  }
  return found;
}

describe("Homebrew formula", () => {
  test("the committed formula pins this version's archive for macOS and Linux on ARM and Intel", async () => {
    const rb = await Bun.file(join(root, "Formula", "dsh.rb")).text();
    expect(rb).toContain(`version "${VERSION}"`);
    expect(platforms(rb).map(({ os, cpu, url }) => ({ os, cpu, url }))).toEqual([
      { os: "macos", cpu: "arm", url: `${releaseBase()}/dsh-darwin-arm64.tar.gz` },
      { os: "macos", cpu: "intel", url: `${releaseBase()}/dsh-darwin-x64.tar.gz` },
      { os: "linux", cpu: "arm", url: `${releaseBase()}/dsh-linux-arm64.tar.gz` },
      { os: "linux", cpu: "intel", url: `${releaseBase()}/dsh-linux-x64.tar.gz` },
    ]);
    expect(rb).toContain('bin.install "dsh"');
    expect(rb).toMatch(
      /test do\n\s+assert_match "dsh #\{version\}", shell_output\("#\{bin\}\/dsh --version"\)/,
    );
  });

  releaseTest(
    "a formula made from build:all's archives carries their checksums, and its test passes on the Linux one",
    async () => {
      const rb = formula(await readAssets(releaseDir));
      for (const platform of platforms(rb)) {
        const file = join(releaseDir, platform.url.split("/").at(-1) ?? "");
        expect(await sha256Of(file)).toBe(platform.sha256);
      }
      // What `brew install` then `brew test` do on Linux x86_64: unpack, install bin/dsh, run it.
      const prefix = mkdtempSync(join(tmpdir(), "dsh-brew-"));
      try {
        await run(["tar", "-xzf", join(releaseDir, "dsh-linux-x64.tar.gz"), "-C", prefix]);
        const version = await run([join(prefix, "dsh"), "--version"], { env: {} });
        expect(version.stdout).toContain(`dsh ${VERSION}`);
      } finally {
        rmSync(prefix, { recursive: true, force: true });
      }
    },
  );
});
