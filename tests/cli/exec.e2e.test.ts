/** `dsh exec` and friends through the compiled binary, over real pipes, against the test model server. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary } from "../support/binary.ts";
import { expectReasoningEcho, type ModelServer, startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { FIRST_TURN_OPENING } from "../support/session-events.ts";

let binary: string;
let server: ModelServer;
let root: string;

beforeAll(async () => {
  binary = await ensureBinary();
  server = await startModelServer();
  root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-cli-")));
});

afterAll(async () => {
  await server[Symbol.asyncDispose]();
  rmSync(root, { recursive: true, force: true });
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A fresh project and state dir per call, so tests stay independent. */
function sandboxDirs(name: string) {
  const base = join(root, name);
  const cwd = join(base, "project");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(base, "user"), { recursive: true });
  writeFileSync(join(base, "config.toml"), "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(base, "user"),
    DSH_HOME: join(base, "home"),
    DSH_CONFIG: join(base, "config.toml"),
    DSH_BASE_URL: server.url,
    DSH_API_KEY: "test-key",
  };
  return { cwd, env, home: join(base, "home") };
}

async function dsh(args: string[], options: { cwd: string; env: Record<string, string>; stdin?: string }): Promise<Run> {
  const proc = Bun.spawn([binary, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

describe("dsh exec", () => {
  test("runs a two-step tool turn: the answer on stdout, activity on stderr, all of it in the session log", async () => {
    const { cwd, env, home } = sandboxDirs("two-step");
    writeFileSync(join(cwd, "README.md"), "# Demo\nA demo project.\n");
    server.script(
      toolTurn([{ id: "call_r", name: "read_file", args: { path: "README.md" } }], { reasoning: "read the readme" }),
      { ...textTurn("It is a demo project."), expect: expectReasoningEcho(["read the readme"]) },
    );
    const run = await dsh(["exec", "what is this project?"], { cwd, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("It is a demo project.\n");
    expect(run.stderr).toContain("Read README.md");
    expect(run.stderr).toContain("read the readme");
    const id = /session ([0-9a-f-]{36})/.exec(run.stderr)?.[1] ?? "";
    const lines = readFileSync(join(home, "sessions", `${id}.jsonl`), "utf8").trim().split("\n");
    const types = lines.map((line) => JSON.parse(line).type);
    expect(types).toEqual([
      "header",
      ...FIRST_TURN_OPENING,
      "usage",
      "reasoning",
      "tool_call",
      "tool_result",
      "usage",
      "assistant_text",
      "turn_end",
    ]);
    expect(JSON.parse(lines.at(-1) ?? "{}").reason).toBe("end_turn");
    expect(readFileSync(join(home, "sessions", `${id}.jsonl`), "utf8")).not.toContain("test-key");
  });

  test("--resume continues a saved session with its history", async () => {
    const { cwd, env } = sandboxDirs("resume");
    server.script(textTurn("first answer"), textTurn("second answer"));
    const first = await dsh(["exec", "one"], { cwd, env });
    const id = /session ([0-9a-f-]{36})/.exec(first.stderr)?.[1] ?? "";
    const requestsBefore = server.requests.length;
    const second = await dsh(["exec", "--resume", id, "two"], { cwd, env });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("second answer\n");
    const roles = (server.requests[requestsBefore]?.body.messages as { role: string }[]).map((m) => m.role);
    expect(roles).toEqual(["system", "user", "assistant", "user"]);
    const listed = await dsh(["sessions"], { cwd, env });
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain("one");
  });

  test("reads the prompt from stdin with -", async () => {
    const { cwd, env } = sandboxDirs("stdin");
    server.script(textTurn("from stdin"));
    const run = await dsh(["exec", "-"], { cwd, env, stdin: "hello from a pipe\n" });
    expect(run.code).toBe(0);
    const messages = server.requests.at(-1)?.body.messages as { role: string; content: string }[];
    expect(messages.at(-1)?.content).toBe("hello from a pipe\n");
  });

  test("a missing API key is one line naming both variables, exit 1", async () => {
    const { cwd, env } = sandboxDirs("no-key");
    const { DSH_API_KEY: _, ...withoutKey } = env;
    const run = await dsh(["exec", "hi"], { cwd, env: withoutKey });
    expect(run.code).toBe(1);
    const error = run.stderr.split("\n").find((line) => line.startsWith("dsh: ")) ?? "";
    expect(error).toContain("DSH_API_KEY");
    expect(error).toContain("DEEPSEEK_API_KEY");
  });

  test("an unreachable endpoint is a clear error, exit 1", async () => {
    const { cwd, env } = sandboxDirs("unreachable");
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const url = `http://127.0.0.1:${closed.port}`;
    await closed.stop(true);
    const run = await dsh(["exec", "hi"], { cwd, env: { ...env, DSH_BASE_URL: url } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("127.0.0.1");
  });

  test("an unknown flag is a usage error, exit 2", async () => {
    const { cwd, env } = sandboxDirs("flags");
    const run = await dsh(["exec", "--frobnicate", "hi"], { cwd, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown flag: --frobnicate");
    expect(run.stdout).toBe("");
  });

  test("--version and --help", async () => {
    const { cwd, env } = sandboxDirs("meta");
    const version = await dsh(["--version"], { cwd, env });
    expect(version).toEqual({ code: 0, stdout: expect.stringMatching(/^dsh \d+\.\d+\.\d+\n$/), stderr: "" });
    const help = await dsh(["--help"], { cwd, env });
    expect(help.code).toBe(0);
    for (const word of ["dsh acp", "dsh exec", "--permission", "DSH_API_KEY", "DSH_SANDBOX"]) {
      expect(help.stdout).toContain(word);
    }
  });
});
