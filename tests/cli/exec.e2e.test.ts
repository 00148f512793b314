/** `dsh exec` and friends through the compiled binary, over real pipes, against the test model server. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { expectReasoningEcho, textTurn, toolTurn } from "../support/model-server.ts";
import { FIRST_TURN_OPENING } from "../support/session-events.ts";

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-cli");
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

describe("dsh exec", () => {
  test("runs a two-step tool turn: the answer on stdout, activity on stderr, all of it in the session log", async () => {
    const project = rig.project("two-step");
    const { cwd, home } = project;
    writeFileSync(join(cwd, "README.md"), "# Demo\nA demo project.\n");
    rig.server.script(
      toolTurn([{ id: "call_r", name: "read_file", args: { path: "README.md" } }], {
        reasoning: "read the readme",
      }),
      { ...textTurn("It is a demo project."), expect: expectReasoningEcho(["read the readme"]) },
    );
    const run = await rig.run(["exec", "what is this project?"], project);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("It is a demo project.\n");
    expect(run.stderr).toContain("Read README.md");
    expect(run.stderr).toContain("read the readme");
    const id = /session ([0-9a-f-]{36})/.exec(run.stderr)?.[1] ?? "";
    const lines = readFileSync(join(home, "sessions", `${id}.jsonl`), "utf8")
      .trim()
      .split("\n");
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
    const project = rig.project("resume");
    rig.server.script(textTurn("first answer"), textTurn("second answer"));
    const first = await rig.run(["exec", "one"], project);
    const id = /session ([0-9a-f-]{36})/.exec(first.stderr)?.[1] ?? "";
    const requestsBefore = rig.server.requests.length;
    const second = await rig.run(["exec", "--resume", id, "two"], project);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("second answer\n");
    const roles = (rig.server.requests[requestsBefore]!.body.messages as { role: string }[]).map(
      (m) => m.role,
    );
    expect(roles).toEqual(["system", "user", "assistant", "user"]);
    const listed = await rig.run(["sessions"], project);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain("one");
  });

  test("reads the prompt from stdin with -", async () => {
    const project = rig.project("stdin");
    rig.server.script(textTurn("from stdin"));
    const run = await rig.run(["exec", "-"], project, { stdin: "hello from a pipe\n" });
    expect(run.code).toBe(0);
    const messages = rig.server.requests.at(-1)?.body.messages as {
      role: string;
      content: string;
    }[];
    expect(messages.at(-1)?.content).toBe("hello from a pipe\n");
  });

  test("a missing API key is one line naming dsh login and both variables, exit 1", async () => {
    const project = rig.project("no-key");
    const { DSH_API_KEY: _, ...withoutKey } = project.env;
    // A remote endpoint (a server on 127.0.0.1 is asked without a key); nothing is sent to it.
    const env = { ...withoutKey, DSH_BASE_URL: "https://api.deepseek.com" };
    const run = await rig.run(["exec", "hi"], project, { env });
    expect(run.code).toBe(1);
    const error = run.stderr.split("\n").find((line) => line.startsWith("dsh: ")) ?? "";
    expect(error).toContain("dsh login");
    expect(error).toContain("DSH_API_KEY");
    expect(error).toContain("DEEPSEEK_API_KEY");
  });

  test("an unreachable endpoint is a clear error, exit 1", async () => {
    const project = rig.project("unreachable");
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const url = `http://127.0.0.1:${closed.port}`;
    await closed.stop(true);
    const run = await rig.run(["exec", "hi"], project, {
      env: { ...project.env, DSH_BASE_URL: url },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("127.0.0.1");
  });

  test("an unknown flag is a usage error, exit 2", async () => {
    const project = rig.project("flags");
    const run = await rig.run(["exec", "--frobnicate", "hi"], project);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown flag: --frobnicate");
    expect(run.stdout).toBe("");
  });

  test("--version and --help", async () => {
    const project = rig.project("meta");
    const version = await rig.run(["--version"], project);
    expect(version).toEqual({
      code: 0,
      stdout: expect.stringMatching(
        /^dsh \d+\.\d+\.\d+ \([0-9a-f]{7,}\)\nthe dsh coding agent .*\n$/,
      ),
      stderr: "",
    });
    const help = await rig.run(["--help"], project);
    expect(help.code).toBe(0);
    for (const word of ["dsh acp", "dsh exec", "--permission", "DSH_API_KEY", "DSH_SANDBOX"]) {
      expect(help.stdout).toContain(word);
    }
  });
});
