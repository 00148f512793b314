/** install.sh against build:all's archives served from 127.0.0.1, as a new user would run it. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPOSITORY, VERSION } from "../../scripts/project.ts";
import { releaseDir, releaseTest, run } from "./release-dir.ts";

const root = join(import.meta.dir, "..", "..");
const script = join(root, "install.sh");
let server: ReturnType<typeof Bun.serve>;
let corrupt = false;
let base: string;

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const name = new URL(request.url).pathname.slice(1);
      if (name.includes("/") || name.startsWith(".")) return new Response("no", { status: 404 });
      if (corrupt && name.endsWith(".sha256")) return new Response(`${"0".repeat(64)}  ${name}\n`);
      const file = Bun.file(join(releaseDir, name));
      return file.size > 0 ? new Response(file) : new Response("not found", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(() => server.stop(true));

function home() {
  const dir = mkdtempSync(join(tmpdir(), "dsh-install-"));
  return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

const env = (homeDir: string) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: homeDir,
  DSH_DOWNLOAD_BASE: base,
});

describe("install.sh", () => {
  test("names package.json's repository as its download source", async () => {
    for (const file of ["install.sh", "install.ps1"]) {
      const text = await Bun.file(join(root, file)).text();
      expect(text).toContain(`"${REPOSITORY}"`);
      expect(text).toContain(`${REPOSITORY}/releases/latest/download/install`);
    }
  });

  releaseTest(
    "installs the checked binary into ~/.local/bin and says how to put it on PATH",
    async () => {
      corrupt = false;
      using h = home();
      const result = await run(["sh", script], { env: env(h.dir) });
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const installed = join(h.dir, ".local", "bin", "dsh");
      expect(result.stdout).toContain(`installed dsh ${VERSION}`);
      expect(result.stdout).toContain(`add ${join(h.dir, ".local", "bin")} to your PATH`);
      expect((await run([installed, "--version"], { env: {} })).stdout).toStartWith(
        `dsh ${VERSION} (`,
      );
    },
  );

  releaseTest("installs into the directory given as its argument", async () => {
    corrupt = false;
    using h = home();
    const dir = join(h.dir, "tools");
    const result = await run(["sh", script, dir], { env: env(h.dir) });
    expect(result.code).toBe(0);
    expect(existsSync(join(dir, "dsh"))).toBe(true);
  });

  releaseTest("a checksum that does not match installs nothing and says so", async () => {
    corrupt = true;
    using h = home();
    const result = await run(["sh", script], { env: env(h.dir) });
    corrupt = false;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("checksum mismatch for dsh-linux-x64.tar.gz");
    expect(existsSync(join(h.dir, ".local", "bin", "dsh"))).toBe(false);
  });

  test("a release that does not exist fails with the URL it tried", async () => {
    using h = home();
    const result = await run(["sh", script], {
      env: { ...env(h.dir), DSH_DOWNLOAD_BASE: `${base}/missing` },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`could not download ${base}/missing/dsh-linux-x64.tar.gz`);
  });
});
