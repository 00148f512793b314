/** `dsh exec` and friends through the compiled binary, over real pipes, against the test model server. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { ExecJsonEvent } from "../../src/cli/exec-json.ts";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { chunks, expectReasoningEcho, textTurn, toolTurn } from "../support/model-server.ts";
import { watchOutput } from "../support/process-output.ts";
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
    expect(listed.stdout).toMatch(new RegExp(`^${id}  just now +one\n$`));
    const elsewhere = rig.project("resume-other");
    const all = await rig.run(["sessions", "--all"], {
      ...elsewhere,
      env: { ...elsewhere.env, DSH_HOME: project.home },
    });
    expect(all.stdout).toContain(`${id}  just now  ${project.cwd}  one`);
  });

  test("a resume from another directory names the session's directory and the --cwd that resumes it", async () => {
    const project = rig.project("resume-elsewhere");
    rig.server.script(textTurn("first answer"));
    const first = await rig.run(["exec", "one"], project);
    const id = /session ([0-9a-f-]{36})/.exec(first.stderr)?.[1] ?? "";
    const elsewhere = join(project.base, "user");
    const proc = Bun.spawn([rig.binary, "exec", "--resume", id, "two"], {
      cwd: elsewhere,
      env: project.env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `dsh: session ${id} belongs to ${project.cwd}; resume it there: dsh --resume ${id} --cwd ${project.cwd}\n`,
    );
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

  test("delivers a 2 MB answer whole to a reader that starts late, then exits 0", async () => {
    const project = rig.project("big-answer");
    const answer = `${"0123456789abcdef".repeat(131_072)}`;
    rig.server.script({
      respond: {
        stream: [
          ...chunks(answer, 65_536).map((text) => ({ text })),
          { finish: "stop" },
          { usage: { prompt: 10, completion: 5 } },
          { done: true },
        ],
      },
    });
    const proc = Bun.spawn([rig.binary, "exec", "write a lot"], {
      cwd: project.cwd,
      env: project.env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stderr = watchOutput(proc.stderr);
    // The last line comes after the whole answer was handed to stdout: only now start reading.
    await stderr.waitFor(" tokens (0%) · $");
    const stdout = await new Response(proc.stdout).text();
    expect(await proc.exited).toBe(0);
    expect(stdout.length).toBe(answer.length + 1);
    expect(stdout).toBe(`${answer}\n`);
  });

  test("--json: every stdout line parses as an event, session first and turn_end last", async () => {
    const project = rig.project("json");
    writeFileSync(join(project.cwd, "a.txt"), "alpha\n");
    rig.server.script(
      toolTurn([{ id: "r1", name: "read_file", args: { path: "a.txt" } }], { reasoning: "look" }),
      textTurn("It says alpha."),
    );
    const run = await rig.run(["exec", "--json", "read a.txt"], project);
    expect(run.code).toBe(0);
    const events = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => v.parse(ExecJsonEvent, JSON.parse(line)));
    const types = events.map((event) => event.type);
    expect(types[0]).toBe("session");
    expect(types.at(-1)).toBe("turn_end");
    for (const type of ["reasoning", "tool_call", "tool_result", "usage", "text"] as const)
      expect(types).toContain(type);
    const text = events.flatMap((event) => (event.type === "text" ? [event.text] : [])).join("");
    expect(text).toBe("It says alpha.");
    expect(events.at(-1)).toEqual({ type: "turn_end", reason: "end_turn" });
  });

  test("into a pipe, only the final answer is on stdout; -o writes it to a file; piped input is appended to the prompt", async () => {
    const project = rig.project("final-only");
    writeFileSync(join(project.cwd, "a.txt"), "alpha\n");
    rig.server.script(
      {
        respond: {
          stream: [
            { text: "Let me look at the file." },
            { toolCall: { index: 0, id: "r1", name: "read_file", args: '{"path":"a.txt"}' } },
            { finish: "tool_calls" },
            { done: true },
          ],
        },
      },
      textTurn("It says alpha."),
    );
    const before = rig.server.requests.length;
    const run = await rig.run(["exec", "-o", "last.md", "summarise this:"], project, {
      stdin: "some piped log\n",
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("It says alpha.\n");
    expect(run.stderr).toContain("Let me look at the file.");
    expect(readFileSync(join(project.cwd, "last.md"), "utf8")).toBe("It says alpha.");
    const messages = rig.server.requests[before]?.body.messages as {
      role: string;
      content: string;
    }[];
    expect(messages.at(-1)?.content).toBe("summarise this:\n\nsome piped log\n");
  });

  test("prints the session id before the turn, so a killed run can be resumed", async () => {
    const project = rig.project("killed");
    rig.server.script({ respond: { hang: true } }, textTurn("picked up"));
    const before = rig.server.requests.length;
    const proc = Bun.spawn([rig.binary, "exec", "start something"], {
      cwd: project.cwd,
      env: project.env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stderr = watchOutput(proc.stderr);
    await rig.server.received(before);
    await stderr.waitFor("\n");
    const id = /^session ([0-9a-f-]{36})\n/.exec(stderr.text())?.[1] ?? "";
    proc.kill("SIGKILL");
    await proc.exited;
    const resumed = await rig.run(["exec", "--resume", id, "go on"], project);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe("picked up\n");
  });
});

describe("errors as advice", () => {
  const firstError = (stderr: string) =>
    stderr.split("\n").filter((line) => line.startsWith("dsh: "));

  test("a malformed DSH_BASE_URL is a config error at start: no request, one line, exit 1", async () => {
    const project = rig.project("garbage-url");
    const before = rig.server.requests.length;
    const run = await rig.run(["exec", "hi"], project, {
      env: { ...project.env, DSH_BASE_URL: "garbage" },
    });
    expect(run.code).toBe(1);
    expect(firstError(run.stderr)).toEqual([
      'dsh: DSH_BASE_URL "garbage" is not an http(s) URL; set it to the endpoint\'s base, such as https://api.deepseek.com',
    ]);
    expect(rig.server.requests.length).toBe(before);
  });

  test("a rejected model id is named with how to pick another; a rejected key says where it came from", async () => {
    const project = rig.project("rejected");
    rig.server.script(
      { respond: { status: 400, json: { error: { message: "Model Not Exist" } } } },
      { respond: { status: 401, json: { error: { message: "key expired" } } } },
    );
    const model = await rig.run(["exec", "--model", "no-such-model", "hi"], project);
    expect(model.code).toBe(1);
    const [modelLine = ""] = firstError(model.stderr);
    expect(modelLine).toContain('the endpoint rejected model "no-such-model"');
    expect(modelLine).toContain("--model ID");
    const key = await rig.run(["exec", "hi"], project);
    expect(key.code).toBe(1);
    const [keyLine = ""] = firstError(key.stderr);
    expect(keyLine).toContain("key expired");
    expect(keyLine).toContain("the key is the one in DSH_API_KEY: fix or unset it");
    for (const run of [model, key]) expect(run.stderr).not.toMatch(/ WARN | ERROR |verbose: true/);
  });

  test("a connection the endpoint keeps cutting is one line in the user's terms, without the runtime's hint", async () => {
    const project = rig.project("reset");
    const reset = { respond: { stream: [{ disconnect: "reset" as const }] } };
    rig.server.script(reset, reset, reset, reset);
    const run = await rig.run(["exec", "hi"], project);
    expect(run.code).toBe(1);
    const lines = firstError(run.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(rig.server.url.replace("http://", ""));
    expect(lines[0]).toContain("check DSH_BASE_URL");
    expect(run.stderr).not.toMatch(/verbose|WARN/);
    expect(rig.server.pending()).toBe(0);
  });

  test("every usage error exits 2: a bad flag value, a flag of another command, two sessions named", async () => {
    const project = rig.project("usage");
    for (const args of [
      ["exec", "--permission", "everything", "hi"],
      ["sessions", "--json"],
      ["doctor", "--model", "x"],
      ["exec", "--resume", "a", "--continue", "hi"],
    ]) {
      const run = await rig.run(args, project);
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: "" });
      expect(run.stderr).toContain("dsh --help");
    }
  });

  test("dsh help prints the usage", async () => {
    const run = await rig.run(["help"], rig.project("help"));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("dsh exec");
    expect(run.stdout).toContain("--continue");
  });
});

test("dsh rules lists model-proposed commands without the escape sequences they carry", async () => {
  const project = rig.project("rules-escapes");
  mkdirSync(project.home, { recursive: true });
  writeFileSync(
    join(project.home, "rules.json"),
    JSON.stringify({
      version: 1,
      projects: {
        [project.cwd]: [{ type: "command", words: ["npm", "test\u001b]0;owned\u0007\u001b[2J"] }],
      },
    }),
  );
  const run = await rig.run(["rules"], project);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain("npm test");
  expect(run.stdout).not.toContain("\u001b");
  expect(run.stdout).not.toContain("\u0007");
});
