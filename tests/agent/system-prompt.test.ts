import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSystemPrompt, findInstructions } from "../../src/agent/system-prompt.ts";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "dsh-prompt-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("AGENTS.md files come from the config dir, then the repository root down to the cwd", () => {
  const repo = join(dir, "repo");
  const pkg = join(repo, "packages", "app");
  const config = join(dir, "config");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(pkg, { recursive: true });
  mkdirSync(config);
  writeFileSync(join(dir, "AGENTS.md"), "outside the repo: never read");
  writeFileSync(join(repo, "AGENTS.md"), "root rules");
  writeFileSync(join(pkg, "AGENTS.md"), "package rules");
  writeFileSync(join(config, "AGENTS.md"), "user rules");
  writeFileSync(join(repo, "packages", "AGENTS.md"), "   \n");
  expect(findInstructions(pkg, config)).toEqual([
    { path: join(config, "AGENTS.md"), text: "user rules" },
    { path: join(repo, "AGENTS.md"), text: "root rules" },
    { path: join(pkg, "AGENTS.md"), text: "package rules" },
  ]);
});

test("without a repository only the cwd's AGENTS.md is read", () => {
  const cwd = join(dir, "plain");
  mkdirSync(cwd);
  writeFileSync(join(dir, "AGENTS.md"), "parent");
  writeFileSync(join(cwd, "AGENTS.md"), "here");
  expect(findInstructions(cwd, undefined)).toEqual([{ path: join(cwd, "AGENTS.md"), text: "here" }]);
});

test("the prompt names dsh, the cwd, the platform, the date and each instruction file", () => {
  const prompt = buildSystemPrompt({
    cwd: "/work/p",
    platform: "linux x64",
    date: "2026-11-29",
    instructions: [{ path: "/work/p/AGENTS.md", text: "Use tabs.\n" }],
  });
  for (const part of ["You are dsh", "Working directory: /work/p", "Platform: linux x64", "Date: 2026-11-29", "Instructions from /work/p/AGENTS.md:\nUse tabs."]) {
    expect(prompt).toContain(part);
  }
});
