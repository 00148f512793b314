/**
 * Hostile setups for `dsh exec` and `dsh chat` through the compiled binary: a state dir that is
 * a file or cannot be used, a `--cwd` that does not exist, a config path that is a directory, a
 * `--resume` id that tries to name another file. Each ends with exit 1 and one clear line on
 * stderr, before any model request, with nothing written anywhere.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliProject, type CliRig, type CliRun, startCliRig } from "../support/cli.ts";

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-hostile-cli");
});

afterAll(async () => {
  expect(rig.server.requests).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

const isRoot = process.getuid?.() === 0;

/** Runs `dsh ARGS` both as `exec PROMPT` and as a chat fed one line. */
async function both(
  project: CliProject,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<CliRun[]> {
  const options = { env: { ...project.env, ...env } };
  return Promise.all([
    rig.run(["exec", ...args, "hello"], project, options),
    rig.run(["chat", ...args], project, { ...options, stdin: "hello\n" }),
  ]);
}

/** One `dsh: ...` line on stderr, nothing on stdout, exit 1. */
function expectRefused(runs: readonly CliRun[], ...needles: string[]): void {
  for (const run of runs) {
    expect({
      code: run.code,
      stdout: run.stdout,
      lines: run.stderr.trimEnd().split("\n").length,
    }).toEqual({
      code: 1,
      stdout: "",
      lines: 1,
    });
    expect(run.stderr.startsWith("dsh: ")).toBe(true);
    for (const needle of needles) expect(run.stderr).toContain(needle);
  }
}

const sessionFiles = (project: CliProject) =>
  existsSync(join(project.home, "sessions")) ? readdirSync(join(project.home, "sessions")) : [];

describe.concurrent("dsh exec and dsh chat with hostile setups", () => {
  test("a DSH_HOME that is a file is refused, naming it", async () => {
    const project = rig.project("home-file");
    const file = join(project.base, "home-file");
    writeFileSync(file, "not a directory");
    expectRefused(await both(project, [], { DSH_HOME: file }), file, "not a directory");
  });

  test("a DSH_HOME whose sessions entry is a file is refused, naming it", async () => {
    const project = rig.project("sessions-file");
    mkdirSync(project.home, { recursive: true });
    writeFileSync(join(project.home, "sessions"), "not a directory");
    // The message is the file system's own (EEXIST from mkdir); it names the path at least.
    expectRefused(await both(project, []), join(project.home, "sessions"));
  });

  test(`a DSH_HOME that cannot be used is refused, naming it (${isRoot ? "as root: one the kernel refuses" : "unreadable"})`, async () => {
    const project = rig.project("home-unusable");
    // Permissions do not bind root, so as root the state dir is one no process may create.
    const home = isRoot ? "/sys/dsh-hostile-home" : join(project.base, "locked", "home");
    if (!isRoot) {
      mkdirSync(join(project.base, "locked"));
      chmodSync(join(project.base, "locked"), 0o000);
    }
    try {
      expectRefused(await both(project, [], { DSH_HOME: home }), home);
    } finally {
      if (!isRoot) chmodSync(join(project.base, "locked"), 0o700);
    }
  });

  test("a --cwd that does not exist is refused, naming it, and no session is created", async () => {
    const project = rig.project("cwd-missing");
    const missing = join(project.base, "nowhere");
    expectRefused(await both(project, ["--cwd", missing]), `cwd does not exist: ${missing}`);
    expect(sessionFiles(project)).toEqual([]);
  });

  test("a --cwd that is a file is refused, naming it", async () => {
    const project = rig.project("cwd-file");
    const file = join(project.cwd, "file.txt");
    writeFileSync(file, "x");
    expectRefused(await both(project, ["--cwd", file]), `cwd is not a directory: ${file}`);
    expect(sessionFiles(project)).toEqual([]);
  });

  test("a config path that is a directory is refused, naming it, and no session is created", async () => {
    const project = rig.project("config-dir");
    const dir = join(project.base, "config.d");
    mkdirSync(dir);
    expectRefused(await both(project, [], { DSH_CONFIG: dir }), dir);
    expect(sessionFiles(project)).toEqual([]);
  });

  test("a --resume id that tries to name another file is refused before any file is touched", async () => {
    const project = rig.project("resume-hostile");
    mkdirSync(join(project.home, "sessions"), { recursive: true });
    writeFileSync(join(project.base, "evil.jsonl"), "");
    for (const id of [
      "../../evil",
      "..",
      "%2e%2e%2fevil",
      "\u2024\u2024\uff0fevil",
      "/etc/passwd",
      "x".repeat(10_240),
    ]) {
      const runs = await both(project, ["--resume", id]);
      expectRefused(runs, "invalid session id");
      for (const run of runs) expect(run.stderr.length).toBeLessThan(400);
    }
    expect(sessionFiles(project)).toEqual([]);
    expect(readdirSync(project.base).sort()).toEqual([
      "config.toml",
      "evil.jsonl",
      "home",
      "project",
      "user",
    ]);
  });

  test("a config path that is a directory is called a directory, not invalid TOML", async () => {
    const project = rig.project("config-dir-wording");
    const dir = join(project.base, "config.d");
    mkdirSync(dir);
    const [run] = await both(project, [], { DSH_CONFIG: dir });
    expect(run?.stderr).not.toContain("not valid TOML");
    expect(run?.stderr).toContain("is a directory, not a config file");
  });

  test("a --cwd inside /proc is refused like it is over ACP", async () => {
    const project = rig.project("cwd-proc");
    // No API key: should the session be created, its turn fails at once without a model request.
    const run = await rig.run(["exec", "--cwd", "/proc/self", "hello"], project, {
      env: { ...project.env, DSH_API_KEY: "" },
    });
    expect(run.stderr).toContain("kernel file system");
  });
});
