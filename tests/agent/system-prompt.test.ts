import { afterEach, beforeEach, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  MAX_INSTRUCTIONS_BYTES,
  buildSystemPrompt,
  findInstructions,
} from "../../src/agent/system-prompt.ts";
import type { Logger } from "../../src/log.ts";
import { secretPlacesOf } from "../../src/file-safety/credential-paths.ts";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "dsh-prompt-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Warning {
  readonly message: string;
  readonly data?: Record<string, unknown>;
}

/** A logger that keeps the warnings, the seam the refusals are reported through. */
function warningLogger(): Logger & { readonly warnings: Warning[] } {
  const warnings: Warning[] = [];
  return {
    warnings,
    debug() {},
    info() {},
    warn: (message, data) => void warnings.push({ message, data }),
    error() {},
  };
}

function find(cwd: string, configDir: string | undefined, logger = warningLogger()) {
  return findInstructions({
    cwd,
    configDir,
    secrets: secretPlacesOf({ home: join(dir, "home"), stateDir: join(dir, "state") }),
    logger,
    signal: new AbortController().signal,
  });
}

test("AGENTS.md files come from the config dir, then the repository root down to the cwd", async () => {
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
  expect(await find(pkg, config)).toEqual([
    { path: join(config, "AGENTS.md"), text: "user rules" },
    { path: join(repo, "AGENTS.md"), text: "root rules" },
    { path: join(pkg, "AGENTS.md"), text: "package rules" },
  ]);
});

test("without a repository only the cwd's AGENTS.md is read", async () => {
  const cwd = join(dir, "plain");
  mkdirSync(cwd);
  writeFileSync(join(dir, "AGENTS.md"), "parent");
  writeFileSync(join(cwd, "AGENTS.md"), "here");
  expect(await find(cwd, undefined)).toEqual([{ path: join(cwd, "AGENTS.md"), text: "here" }]);
});

test("a symlink to a file inside the repository is followed", async () => {
  const repo = join(dir, "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
  mkdirSync(join(repo, "docs"));
  writeFileSync(join(repo, "docs", "agents.md"), "linked rules");
  symlinkSync("docs/agents.md", join(repo, "AGENTS.md"));
  expect(await find(repo, undefined)).toEqual([
    { path: join(repo, "AGENTS.md"), text: "linked rules" },
  ]);
});

test("every unsafe AGENTS.md is left out and named in the log, without blocking", async () => {
  const home = join(dir, "home");
  const repo = join(dir, "repo");
  const levels = ["environ", "aws", "fifo", "binary", "outside", "big", "latin1", "state"];
  const cwd = join(repo, ...levels);
  mkdirSync(join(repo, ".git"), { recursive: true });
  writeFileSync(join(repo, ".git", "HEAD"), "ref: refs/heads/main\n");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".aws"), { recursive: true });
  mkdirSync(join(dir, "state", "sessions"), { recursive: true });
  writeFileSync(join(home, ".aws", "credentials"), "aws_secret_access_key = AKIASECRET");
  writeFileSync(join(dir, "outside.md"), "outside the repository");
  writeFileSync(join(dir, "state", "sessions", "other.jsonl"), '{"type":"header"}\n');
  const at = (depth: number) => join(repo, ...levels.slice(0, depth + 1), "AGENTS.md");
  symlinkSync("/proc/self/environ", at(0));
  symlinkSync(join(home, ".aws", "credentials"), at(1));
  execFileSync("mkfifo", [at(2)]);
  writeFileSync(at(3), Buffer.from("rules\0\x01\x02"));
  symlinkSync(join(dir, "outside.md"), at(4));
  writeFileSync(at(5), "x".repeat(MAX_INSTRUCTIONS_BYTES + 1));
  writeFileSync(at(6), Buffer.from([0x72, 0xe9, 0x67, 0x6c, 0x65]));
  symlinkSync(join(dir, "state", "sessions", "other.jsonl"), at(7));
  writeFileSync(join(repo, "AGENTS.md"), "root rules");
  const logger = warningLogger();
  expect(await find(cwd, undefined, logger)).toEqual([
    { path: join(repo, "AGENTS.md"), text: "root rules" },
  ]);
  expect(logger.warnings.map((warning) => warning.data?.path)).toEqual(levels.map((_, i) => at(i)));
  const reasons = logger.warnings.map((warning) => String(warning.data?.reason));
  expect(reasons[0]).toContain("a process's environment");
  expect(reasons[1]).toContain("holds credentials");
  expect(reasons[2]).toContain("named pipe");
  expect(reasons[3]).toContain("binary");
  expect(reasons[4]).toContain(`resolves to ${join(dir, "outside.md")}, outside ${repo}`);
  expect(reasons[5]).toContain("over the 64 KiB limit");
  expect(reasons[6]).toContain("not UTF-8");
  expect(reasons[7]).toContain("state directory");
});

test("an AGENTS.md hard-linked to a credential file is refused by its inode", async () => {
  const home = join(dir, "home");
  const cwd = join(dir, "plain");
  mkdirSync(join(home, ".aws"), { recursive: true });
  mkdirSync(cwd);
  writeFileSync(join(home, ".aws", "credentials"), "aws_secret_access_key = AKIASECRET");
  linkSync(join(home, ".aws", "credentials"), join(cwd, "AGENTS.md"));
  const logger = warningLogger();
  expect(await find(cwd, undefined, logger)).toEqual([]);
  expect(logger.warnings.map((warning) => warning.data)).toEqual([
    {
      path: join(cwd, "AGENTS.md"),
      reason: `${join(cwd, "AGENTS.md")} is under ${join(home, ".aws")}, which holds credentials; dsh does not read it`,
    },
  ]);
});

test("the config dir's AGENTS.md may not lead out of the config dir or into /proc", async () => {
  const config = join(dir, "config");
  const cwd = join(dir, "plain");
  mkdirSync(config);
  mkdirSync(cwd);
  symlinkSync("/proc/self/status", join(config, "AGENTS.md"));
  const logger = warningLogger();
  expect(await find(cwd, config, logger)).toEqual([]);
  expect(logger.warnings).toEqual([
    {
      message: "instruction file refused; it is not in the system prompt",
      data: {
        path: join(config, "AGENTS.md"),
        reason: `it resolves to ${realpathSync("/proc/self/status")}, on the kernel's /proc`,
      },
    },
  ]);
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
