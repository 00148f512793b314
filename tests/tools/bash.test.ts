/**
 * The `bash` tool through the registry, on the real runner: sandbox per preset, escalation and
 * the no-sandbox path through the approval seam (case 30), streaming, and its presenters.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import type {
  ApprovalAnswerer,
  ApprovalDecision,
  ApprovalRequest,
} from "../../src/approval/types.ts";
import { createCommandRunner } from "../../src/exec/runner.ts";
import { noShellMessage, windowsStatus } from "../../src/exec/windows-shell.ts";
import type { CommandRunner } from "../../src/exec/types.ts";
import { silentLogger } from "../../src/log.ts";
import { PRESETS } from "../../src/permission/knobs.ts";
import type { Knobs } from "../../src/permission/knobs.ts";
import { createBashTool } from "../../src/tools/bash.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import type { ExecutedCall } from "../../src/tools/types.ts";
import { DENIED, sandboxStatus, sandboxTest } from "../exec/sandbox-support.ts";
import { toolContext } from "./harness.ts";

function runnerWith(sandbox: "auto" | "none"): CommandRunner {
  return createCommandRunner({
    env: { PATH: process.env.PATH, LANG: "C.UTF-8", OPENAI_API_KEY: "planted" },
    sandbox,
    home: "/nonexistent-home",
    stateDir: "/nonexistent-state",
    logger: silentLogger,
  });
}
const sandboxed = runnerWith("auto");
const noSandbox = runnerWith("none");
const registry = createToolRegistry([createBashTool({ runner: sandboxed })]);

interface Recorder extends ApprovalAnswerer {
  readonly requests: ApprovalRequest[];
}
function answering(decision: ApprovalDecision): Recorder {
  const requests: ApprovalRequest[] = [];
  return {
    requests,
    answer: async (request) => {
      requests.push(request);
      return decision;
    },
  };
}

interface Call {
  readonly args: Record<string, unknown>;
  readonly knobs?: Knobs;
  /** The runner bash is built with: `sandboxed` unless given. */
  readonly runner?: CommandRunner;
  readonly answerers?: readonly ApprovalAnswerer[];
  readonly signal?: AbortSignal;
  readonly progress?: (chunk: string) => void;
}

function workspace(): { path: string } & Disposable {
  const path = realpathSync(mkdtempSync(join(tmpdir(), "dsh-bash-")));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

function call(cwd: string, c: Call): Promise<ExecutedCall> {
  const { runner } = c;
  const over = runner === undefined ? registry : createToolRegistry([createBashTool({ runner })]);
  return over.execute("bash", JSON.stringify(c.args), toolContext(cwd, c));
}

describe("running commands", () => {
  sandboxTest("runs in the preset's sandbox and reports exit code and output", async () => {
    using dir = workspace();
    const chunks: string[] = [];
    const { result, intent } = await call(dir.path, {
      args: { command: "echo hi > a; echo $DSH_SANDBOX; echo ${OPENAI_API_KEY-scrubbed}; exit 2" },
      progress: (chunk) => chunks.push(chunk),
    });
    expect(result.isError).toBe(true);
    const backend = sandboxStatus.backend;
    expect(result.output).toMatch(
      new RegExp(
        `^\\[exit code 2; sandbox: workspace-write; \\d+\\.\\d s\\]\\n${backend}\\nscrubbed\\n$`,
      ),
    );
    expect(chunks.join("")).toBe(`${backend}\nscrubbed\n`);
    expect(readFileSync(join(dir.path, "a"), "utf8")).toBe("hi\n");
    expect(intent).toEqual({
      type: "terminal",
      title: "echo hi > a; echo $DSH_SANDBOX; echo ${OPENAI_API_KEY-scrubbed}; exit 2",
      command: "echo hi > a; echo $DSH_SANDBOX; echo ${OPENAI_API_KEY-scrubbed}; exit 2",
      cwd: dir.path,
      output: `${backend}\nscrubbed\n`,
      exit: { code: 2, signal: null },
    });
  });

  sandboxTest("read-only blocks writes and suggests escalation", async () => {
    using dir = workspace();
    const { result } = await call(dir.path, {
      args: { command: "touch a" },
      knobs: PRESETS["read-only"],
    });
    expect(result.output).toMatch(DENIED);
    expect(result.output).toEndWith("call bash again with escalate: true and a justification]");
    expect(existsSync(join(dir.path, "a"))).toBe(false);
  });

  test.concurrent("danger-full-access runs unsandboxed without asking, env still scrubbed", async () => {
    using dir = workspace();
    const asked = answering("deny");
    const { result } = await call(dir.path, {
      args: { command: "echo $DSH_SANDBOX ${OPENAI_API_KEY-scrubbed}" },
      knobs: PRESETS["danger-full-access"],
      runner: noSandbox,
      answerers: [asked],
    });
    expect(result.output).toMatch(/^\[exit code 0; unsandboxed; \d+\.\d s\]\nnone scrubbed\n$/);
    expect(asked.requests).toEqual([]);
  });

  test.concurrent("a timeout is reported as such", async () => {
    using dir = workspace();
    const { result, intent } = await call(dir.path, {
      args: { command: "sleep 30", timeout_ms: 1000 },
      knobs: PRESETS["danger-full-access"],
    });
    expect(result.output).toStartWith(
      "[timed out; the command and its children were killed; unsandboxed;",
    );
    expect(intent).toMatchObject({ type: "terminal", exit: { code: null, signal: "SIGTERM" } });
  });

  test.concurrent("cancelling the turn kills the command", async () => {
    using dir = workspace();
    const abort = new AbortController();
    const { result } = await call(dir.path, {
      args: { command: "echo ready; sleep 30" },
      knobs: PRESETS["danger-full-access"],
      signal: abort.signal,
      progress: (chunk) => chunk.includes("ready") && abort.abort(),
    });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(
      /^\[cancelled; the command and its children were killed; unsandboxed; \d+\.\d s\]\nready\n$/,
    );
  });

  test("the model sees exactly the five arguments of interface.md", () => {
    const [definition] = registry.definitions();
    const Shape = v.object({
      properties: v.record(v.string(), v.unknown()),
      required: v.array(v.string()),
    });
    const parameters = v.parse(Shape, definition?.parameters);
    expect([definition?.name, Object.keys(parameters.properties), parameters.required]).toEqual([
      "bash",
      ["command", "timeout_ms", "escalate", "justification", "run_in_background"],
      ["command"],
    ]);
  });
});

describe("escalation (case 30)", () => {
  test.concurrent("denied: the command is not run and the model is told", async () => {
    using dir = workspace();
    const asked = answering("deny");
    const { result, intent } = await call(dir.path, {
      args: { command: "touch ran", escalate: true, justification: "needs the network" },
      answerers: [asked],
    });
    expect(result.isError).toBe(true);
    expect(result.output).toStartWith(
      "Running this command outside the sandbox was not approved, so it was not run.",
    );
    expect(existsSync(join(dir.path, "ran"))).toBe(false);
    expect(asked.requests).toEqual([
      {
        sessionId: "s-test",
        toolCallId: "call-1",
        kind: "escalate",
        title: "Run `touch ran` outside the sandbox",
        reason: "the model's reason: needs the network",
        intent: {
          type: "terminal",
          title: "touch ran",
          command: "touch ran",
          cwd: dir.path,
          output: "",
        },
        rawInput: { command: "touch ran", escalate: true, justification: "needs the network" },
        subject: { type: "command", command: "touch ran", where: "outside_sandbox" },
        cwd: dir.path,
      },
    ]);
    // A command that never ran shows the reason as text, not as terminal output.
    expect(intent).toMatchObject({ type: "generic", kind: "execute", title: "touch ran" });
  });

  test.concurrent("nobody to answer means denied", async () => {
    using dir = workspace();
    const { result } = await call(dir.path, { args: { command: "touch ran", escalate: true } });
    expect(result.isError).toBe(true);
    expect(existsSync(join(dir.path, "ran"))).toBe(false);
  });

  test.concurrent("approved once: runs unsandboxed once; the next identical call asks again", async () => {
    using dir = workspace();
    const asked = answering("allow");
    const args = { command: "echo $DSH_SANDBOX >> log", escalate: true, justification: "j" };
    const first = await call(dir.path, { args, answerers: [asked] });
    const second = await call(dir.path, { args, answerers: [asked] });
    expect([first.result.isError, second.result.isError]).toEqual([false, false]);
    expect(first.result.output).toContain("; unsandboxed;");
    expect(readFileSync(join(dir.path, "log"), "utf8")).toBe("none\nnone\n");
    expect(asked.requests.length).toBe(2);
  });

  test.concurrent("the approval policy never turns escalation down without asking", async () => {
    using dir = workspace();
    const asked = answering("allow");
    const { result } = await call(dir.path, {
      args: { command: "touch ran", escalate: true },
      knobs: { sandboxMode: "workspace-write", approvalPolicy: "never" },
      answerers: [asked],
    });
    expect([result.isError, asked.requests.length, existsSync(join(dir.path, "ran"))]).toEqual([
      true,
      0,
      false,
    ]);
  });
});

describe("no working sandbox (case 29)", () => {
  test.concurrent("non-interactive: refused, and the model is told why and that nothing ran", async () => {
    using dir = workspace();
    const { result } = await call(dir.path, { args: { command: "touch ran" }, runner: noSandbox });
    expect(result).toMatchObject({
      isError: true,
      output:
        "No sandbox is available on this machine: sandboxing is turned off (DSH_SANDBOX=none) (fix: unset " +
        "DSH_SANDBOX or set it to auto, or choose the danger-full-access preset to run commands unsandboxed " +
        "on purpose). The command was not run, because running it unsandboxed needs the user's approval and " +
        "it was not given.",
    });
    expect(existsSync(join(dir.path, "ran"))).toBe(false);
  });

  test.concurrent("interactive: each command asks, and runs unsandboxed only when allowed", async () => {
    using dir = workspace();
    const asked = answering("allow");
    const { result } = await call(dir.path, {
      args: { command: "echo $DSH_SANDBOX" },
      runner: noSandbox,
      answerers: [asked],
    });
    expect(result.output).toMatch(/^\[exit code 0; unsandboxed; \d+\.\d s\]\nnone\n$/);
    expect(asked.requests.map((r) => [r.kind, r.title])).toEqual([
      ["unsandboxed", "Run `echo $DSH_SANDBOX` without a sandbox"],
    ]);
    expect(asked.requests[0]?.reason).toStartWith(
      "No sandbox is available on this machine: sandboxing is turned off",
    );
  });
});

describe("presenting", () => {
  test("a call shows as a terminal with the command on one trimmed line", () => {
    const intent = registry.presentCall(
      "bash",
      JSON.stringify({ command: "  make \\\n  test  " }),
      { cwd: "/w" },
    );
    expect(intent).toEqual({
      type: "terminal",
      title: "make \\ test",
      command: "  make \\\n  test  ",
      cwd: "/w",
      output: "",
    });
  });
});

/**
 * A runner where dsh has no sandbox at all (Windows), at the runner's seam: its status is the
 * one Windows gets, and it runs what it is given with this machine's real runner.
 */
function windowsLike(shell: string | undefined): CommandRunner {
  return {
    sandbox: async () => windowsStatus(shell),
    run: (request, options) => noSandbox.run(request, options),
    [Symbol.asyncDispose]: async () => {},
  };
}

describe("where dsh has no sandbox at all (Windows)", () => {
  test.concurrent("without Git Bash: says commands need WSL2, asks nothing, runs nothing", async () => {
    using dir = workspace();
    const asked = answering("allow");
    const { result } = await call(dir.path, {
      args: { command: "touch ran" },
      runner: windowsLike(undefined),
      answerers: [asked],
    });
    expect(result).toMatchObject({ isError: true, output: noShellMessage() });
    expect(result.output).toStartWith("Commands need WSL2 on Windows");
    expect([asked.requests.length, existsSync(join(dir.path, "ran"))]).toEqual([0, false]);
  });

  test.concurrent("with Git Bash: each command is asked about, unsandboxed, and no rule is offered", async () => {
    using dir = workspace();
    const asked = answering("allow");
    const runner = windowsLike("C:\\Program Files\\Git\\bin\\bash.exe");
    const first = await call(dir.path, {
      args: { command: "echo ok" },
      runner,
      answerers: [asked],
    });
    await call(dir.path, { args: { command: "echo ok" }, runner, answerers: [asked] });
    expect(first.result.output).toMatch(/^\[exit code 0; unsandboxed; \d+\.\d s\]\nok\n$/);
    expect(asked.requests.map((request) => [request.kind, request.subject])).toEqual([
      ["unsandboxed", undefined],
      ["unsandboxed", undefined],
    ]);
    expect(asked.requests[0]?.reason).toStartWith(
      "Commands need WSL2 on Windows to run sandboxed (install WSL2",
    );
    expect(asked.requests[0]?.reason).toContain(
      "in Git Bash (C:\\Program Files\\Git\\bin\\bash.exe)",
    );
  });
});
