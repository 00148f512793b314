/**
 * Issue 10, defect 2: any number of dsh processes run sandboxed commands in one project at
 * once, and nothing is left in the project, a SIGKILL included. Real processes, each with its
 * own runner, over one real repository.
 */
import { expect } from "bun:test";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { initRepo } from "./git-support.ts";
import { tempDir } from "./helpers.ts";
import { sandboxTest } from "./sandbox-support.ts";

const fixture = (name: string) => join(import.meta.dir, "fixtures", name);

/** Every path below `root`, relative, sorted. */
function tree(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      found.push(relative(root, path));
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(root);
  return found.sort();
}

/** A repository with a nested one and a husky hooks directory: many guards, some missing. */
function busyProject(root: string): string {
  const ws = join(root, "ws");
  initRepo(ws);
  initRepo(join(ws, "vendor", "lib"));
  mkdirSync(join(ws, ".husky"));
  writeFileSync(join(ws, ".husky", "pre-commit"), "true\n");
  Bun.spawnSync(["git", "-C", ws, "config", "core.hooksPath", ".husky/_"]);
  return ws;
}

/** What dsh adds to a repository once, on purpose, and never removes: git's own empty dirs. */
const GIT_OWN = [".git/modules", ".git/worktrees"];

sandboxTest(
  "5 processes x 10 concurrent sandboxed commands in one project: 0 failures",
  async () => {
    using root = tempDir("dsh-many-", "/var/tmp");
    const ws = busyProject(root.path);
    const before = tree(ws);
    const processes = Array.from({ length: 5 }, () =>
      Bun.spawn(["bun", fixture("run-many.ts"), ws, "10", "echo ok"], {
        stdin: "ignore",
        stdout: "pipe",
        stderr: "inherit",
      }),
    );
    const reports = await Promise.all(processes.map((proc) => new Response(proc.stdout).text()));
    const results = reports.map((line) => JSON.parse(line) as { ok: number; failures: string[] });
    expect(results).toEqual(Array(5).fill({ ok: 10, failures: [] }));
    expect(tree(ws)).toEqual([...before, ...GIT_OWN].sort());
  },
);

sandboxTest("a SIGKILLed process leaves nothing in the project", async () => {
  using root = tempDir("dsh-killed-", "/var/tmp");
  const ws = busyProject(root.path);
  const before = tree(ws);
  const helper = Bun.spawn(["bun", fixture("hold-command.ts"), ws, "echo ready; exec sleep 1000"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "inherit",
  });
  let seen = "";
  for await (const chunk of helper.stdout) {
    seen += new TextDecoder().decode(chunk);
    if (seen.includes("ready")) break;
  }
  helper.kill("SIGKILL");
  await helper.exited;
  expect(tree(ws)).toEqual([...before, ...GIT_OWN].sort());
});
