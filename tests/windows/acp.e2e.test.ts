/**
 * The compiled binary as Windows users and editors meet it: `dsh --version` (dsh.exe there),
 * an ACP handshake whose lines end in CRLF (what a Windows client may send), and the bash
 * tool's answer on Windows, where dsh has no sandbox: with Git Bash every command is asked
 * about, never covered by a rule; without it none runs and the model is told commands need
 * WSL2. The first two run everywhere; the bash cases run on Windows.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { version } from "../../package.json";
import { zedInitialize } from "../support/acp-harness.ts";
import { spawnAcp } from "../support/acp-process.ts";
import { ensureBinary } from "../support/binary.ts";
import { runIf } from "../support/gate.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";

const windowsTest = runIf(
  process.platform === "win32",
  test,
  "what the bash tool says where dsh has no sandbox at all is Windows'",
);

/** This process's environment without its `Path`, whatever its case, and with `PATH` given. */
function environment(path: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && name.toLowerCase() !== "path") env[name] = value;
  }
  if (path !== undefined) env.PATH = path;
  return env;
}

describe("the binary", () => {
  test("--version names the version and the agent", async () => {
    const binary = await ensureBinary();
    const run = Bun.spawnSync([binary, "--version"], { env: environment(process.env.PATH) });
    expect(run.exitCode).toBe(0);
    expect(run.stdout.toString()).toStartWith(`dsh ${version} (`);
    expect(run.stdout.toString()).toContain("the dsh coding agent");
  });

  test("answers an ACP handshake whose lines end in CRLF, then exits at EOF", async () => {
    const binary = await ensureBinary();
    const root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-crlf-")));
    writeFileSync(join(root, "config.toml"), "");
    try {
      const proc = Bun.spawn([binary, "acp"], {
        cwd: root,
        env: {
          ...environment(process.env.PATH),
          DSH_HOME: join(root, "state"),
          DSH_CONFIG: join(root, "config.toml"),
          DSH_API_KEY: "test-key",
          DSH_BASE_URL: "http://127.0.0.1:9",
        },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "ignore",
      });
      const send = (id: number, method: string, params: unknown) =>
        proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\r\n`);
      send(1, "initialize", zedInitialize(false));
      send(2, "session/new", { cwd: root, mcpServers: [] });
      await proc.stdin.flush();
      const replies: { id?: number; result?: Record<string, unknown>; error?: unknown }[] = [];
      const decoder = new TextDecoder();
      let buffer = "";
      for await (const chunk of proc.stdout) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
          replies.push(JSON.parse(buffer.slice(0, nl)));
          buffer = buffer.slice(nl + 1);
        }
        if (replies.some((reply) => reply.id === 2)) break;
      }
      proc.stdin.end();
      expect(await proc.exited).toBe(0);
      const [init, session] = [1, 2].map((id) => replies.find((reply) => reply.id === id));
      expect(init?.result?.protocolVersion).toBe(1);
      expect(typeof session?.result?.sessionId).toBe("string");
      expect(replies.filter((reply) => reply.error !== undefined)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

/** Runs `echo hi` through the bash tool over ACP; returns what the model got, and what was asked. */
async function bashOnWindows(env: Record<string, string>, permission: "allow" | "reject") {
  await using model = await startModelServer();
  const asked: acp.RequestPermissionRequest[] = [];
  await using dsh = await spawnAcp({
    baseUrl: model.url,
    env,
    onPermission: (params) => {
      asked.push(params);
      return { outcome: { outcome: "selected", optionId: permission } };
    },
  });
  await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(false));
  const { sessionId } = await dsh.agent.request(acp.methods.agent.session.new, {
    cwd: dsh.cwd,
    mcpServers: [],
  });
  model.script(toolTurn([{ id: "b1", name: "bash", args: { command: "echo hi" } }]));
  model.script(textTurn("done"));
  await dsh.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "say hi" }],
  });
  const request = await model.received(1);
  const messages = request.body.messages as { role: string; content: string }[];
  return { result: messages.find((m) => m.role === "tool")?.content ?? "", asked };
}

describe("the bash tool on Windows", () => {
  windowsTest(
    "with Git Bash: asks about the command, offers no rule, runs it unsandboxed",
    async () => {
      const { result, asked } = await bashOnWindows(environment(process.env.PATH), "allow");
      expect(asked.length).toBe(1);
      expect(asked[0]?.options.map((option) => option.optionId)).not.toContain("allow_always");
      expect(result).toMatch(/^\[exit code 0; unsandboxed; [\d.]+ s\]\nhi\n/);
    },
  );

  windowsTest("without Git Bash: says commands need WSL2, asks nothing, runs nothing", async () => {
    const env = {
      ...environment("C:\\Windows\\System32"),
      ProgramFiles: "C:\\dsh-no-such-dir",
      ProgramW6432: "C:\\dsh-no-such-dir",
      LOCALAPPDATA: "C:\\dsh-no-such-dir",
    };
    const { result, asked } = await bashOnWindows(env, "allow");
    expect(asked).toEqual([]);
    expect(result).toStartWith("Commands need WSL2 on Windows");
    expect(result).toContain("Git for Windows' bash (bash.exe) was not found");
  });
});
