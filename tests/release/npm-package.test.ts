/**
 * The npm package as users get it: packed with `npm pack`, installed from the tarball into a
 * fresh project, run with `bunx dsh` (exec against the test model server, acp over pipes) and
 * with `npx dsh` on a machine without Bun. Installing reaches the npm registry for the
 * package's dependencies.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VERSION } from "../../scripts/project.ts";
import { startModelServer, textTurn } from "../support/model-server.ts";
import { run } from "./release-dir.ts";

const root = join(import.meta.dir, "..", "..");
let work: string;
let packed: { files: string[]; tarball: string };

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), "dsh-npm-")));
  const pack = await run(["npm", "pack", "--json", "--pack-destination", work], { cwd: root });
  if (pack.code !== 0) throw new Error(`npm pack failed: ${pack.stderr}`);
  const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  packed = {
    files: info?.files.map((f) => f.path) ?? [],
    tarball: join(work, info?.filename ?? ""),
  };
  const project = join(work, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), '{ "name": "try-dsh", "private": true }\n');
  const add = await run(["bun", "add", packed.tarball], { cwd: project });
  if (add.code !== 0) throw new Error(`bun add failed: ${add.stderr}`);
  // npm pack and bun add of a 2 MB tarball: seconds on a loaded machine, past the 5 s default.
}, 60_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

const project = () => join(work, "project");
const isolated = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: join(work, "home"),
  DSH_HOME: join(work, "state"),
  DSH_CONFIG: join(work, "config.toml"),
  ...extra,
});

describe("npm package", () => {
  test("holds only the launcher, the sources, the license and the readme", () => {
    const tops = new Set(packed.files.map((path) => path.split("/")[0]));
    expect([...tops].sort()).toEqual(
      ["LICENSE", "README.md", "bin", "build-commit.txt", "index.ts", "package.json", "src"].sort(),
    );
    expect(packed.files.filter((path) => path.startsWith("bin/"))).toEqual(["bin/dsh"]);
  });

  test("bunx dsh --version names the version and the commit it was packed from", async () => {
    const version = await run(["bun", "x", "dsh", "--version"], {
      cwd: project(),
      env: isolated(),
    });
    expect(version.stdout).toMatch(
      new RegExp(`^dsh ${VERSION.replaceAll(".", "\\.")} \\(([0-9a-f]{7,}|unknown)\\)`),
    );
  });

  test("bunx dsh exec answers from the model", async () => {
    await using server = await startModelServer();
    server.script(textTurn("from the package"));
    writeFileSync(join(work, "config.toml"), "");
    const exec = await run(["bun", "x", "dsh", "exec", "hello"], {
      cwd: project(),
      env: isolated({ DSH_BASE_URL: server.url, DSH_API_KEY: "test-key" }),
    });
    expect([exec.code, exec.stdout]).toEqual([0, "from the package\n"]);
  });

  test("bunx dsh acp answers initialize over its pipes", async () => {
    const proc = Bun.spawn(["bun", "x", "dsh", "acp"], {
      cwd: project(),
      env: isolated(),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    proc.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } })}\n`,
    );
    await proc.stdin.flush();
    // The first line is the answer; stdin closes once it is read, as an editor would.
    const reader = proc.stdout.getReader();
    let stdout = "";
    while (!stdout.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) break;
      stdout += new TextDecoder().decode(value);
    }
    proc.stdin.end();
    reader.releaseLock();
    const code = await proc.exited;
    const reply = JSON.parse(stdout.split("\n")[0] ?? "{}");
    expect([
      code,
      reply.id,
      reply.result?.protocolVersion,
      reply.result?.agentInfo?.version,
    ]).toEqual([0, 0, 1, VERSION]);
  });

  test("npx dsh without Bun prints one line saying how to get it, not a stack trace", async () => {
    // A PATH with node and the usual tools, but no bun.
    const bin = join(work, "no-bun-bin");
    mkdirSync(bin, { recursive: true });
    for (const tool of ["node", "npx", "npm", "sh", "readlink", "dirname", "sed"]) {
      const found = Bun.which(tool);
      if (found !== null) symlinkSync(found, join(bin, tool));
    }
    const npx = await run(["npx", "--no-install", "dsh", "--version"], {
      cwd: project(),
      // npm's own "new version available" notice would be a second line that is not dsh's.
      env: { PATH: bin, HOME: join(work, "home"), npm_config_update_notifier: "false" },
    });
    expect(npx.code).toBe(1);
    expect(npx.stdout).toBe("");
    const lines = npx.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("dsh runs on Bun, which is not installed");
    expect(lines[0]).toContain("/releases");
  });
});
