import { afterEach, beforeEach, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
  writeFileSync(join(repo, ".git/HEAD"), "ref: refs/heads/main\n");
  mkdirSync(pkg, { recursive: true });
  mkdirSync(config);
  writeFileSync(join(dir, "AGENTS.md"), "outside the repo: never read");
  writeFileSync(join(repo, "AGENTS.md"), "root rules");
  writeFileSync(join(pkg, "AGENTS.md"), "package rules");
  writeFileSync(join(config, "AGENTS.md"), "user rules");
  writeFileSync(join(repo, "packages", "AGENTS.md"), "   \n");
  expect(findInstructions(pkg, config, join(dir, "home"))).toEqual([
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
  expect(findInstructions(cwd, undefined, join(dir, "home"))).toEqual([
    { path: join(cwd, "AGENTS.md"), text: "here" },
  ]);
});

test("an AGENTS.md that links into a credential store, or is a FIFO, is skipped without blocking", () => {
  const home = join(dir, "home");
  const cwd = join(dir, "project");
  mkdirSync(join(home, ".aws"), { recursive: true });
  mkdirSync(cwd);
  writeFileSync(join(home, ".aws", "credentials"), "aws_secret_access_key = AKIASECRET");
  symlinkSync(join(home, ".aws", "credentials"), join(cwd, "AGENTS.md"));
  expect(findInstructions(cwd, undefined, home)).toEqual([]);
  const config = join(dir, "config");
  mkdirSync(config);
  execFileSync("mkfifo", [join(config, "AGENTS.md")]);
  expect(findInstructions(cwd, config, home)).toEqual([]);
});

test("only the first 64 KiB of an instruction file is read", () => {
  const cwd = join(dir, "big");
  mkdirSync(cwd);
  writeFileSync(join(cwd, "AGENTS.md"), "x".repeat(200 * 1024));
  expect(findInstructions(cwd, undefined, join(dir, "home"))[0]?.text.length).toBe(64 * 1024);
});

test("the prompt names dsh, the cwd, the platform, the date and each instruction file", () => {
  const prompt = buildSystemPrompt({
    cwd: "/work/p",
    platform: "linux x64",
    date: "2026-11-29",
    instructions: [{ path: "/work/p/AGENTS.md", text: "Use tabs.\n" }],
  });
  for (const part of [
    "You are dsh",
    "Working directory: /work/p",
    "Platform: linux x64",
    "Date: 2026-11-29",
    "Instructions from /work/p/AGENTS.md:\nUse tabs.",
  ]) {
    expect(prompt).toContain(part);
  }
});
