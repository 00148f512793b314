/**
 * `dsh login` / `dsh logout` / `dsh acp --login` and ACP sign-in, through the compiled binary:
 * the key is checked, stored readable by the user only, used when no env key is set, and never
 * reaches a command's environment or the session log.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { spawnAcp } from "../support/acp-process.ts";
import { ensureBinary } from "../support/binary.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";

const KEY = "sk-stored-0123456789";
let root: string;
let binary: string;
/** An endpoint that takes only KEY. */
let strict: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  binary = await ensureBinary();
  root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-login-")));
  strict = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) =>
      request.headers.get("authorization") === `Bearer ${KEY}`
        ? Response.json({ object: "list", data: [] })
        : Response.json(
            { error: { message: "Authentication Fails, Your api key is invalid" } },
            { status: 401 },
          ),
  });
});
afterAll(() => {
  strict.stop(true);
  rmSync(root, { recursive: true, force: true });
});

function place(name: string) {
  const base = join(root, name);
  mkdirSync(join(base, "project"), { recursive: true });
  mkdirSync(join(base, "user"), { recursive: true });
  writeFileSync(join(base, "config.toml"), "");
  const env = (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(base, "user"),
    DSH_HOME: join(base, "state"),
    DSH_CONFIG: join(base, "config.toml"),
    ...extra,
  });
  return { base, state: join(base, "state"), project: join(base, "project"), env };
}

async function dsh(args: string[], env: Record<string, string>, stdin = "") {
  const proc = Bun.spawn([binary, ...args], {
    env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    cwd: root,
  });
  proc.stdin.write(stdin);
  proc.stdin.end();
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  return { code, stdout, stderr };
}

/** `dsh acp` for a remote endpoint with no key in its environment: only a stored key counts. */
function spawnKeylessAcp(p: ReturnType<typeof place>) {
  return spawnAcp({
    baseUrl: "https://api.deepseek.com",
    apiKey: "",
    env: {
      DSH_HOME: p.state,
      HOME: join(p.base, "user"),
      DSH_CONFIG: join(p.base, "config.toml"),
      DSH_API_KEY: "",
      DEEPSEEK_API_KEY: "",
    },
  });
}

describe("dsh login", () => {
  test("checks the key against the endpoint and stores it readable by the user only", async () => {
    const p = place("ok");
    const login = await dsh(
      ["login"],
      p.env({ DSH_BASE_URL: strict.url.href.replace(/\/$/, "") }),
      `${KEY}\n`,
    );
    expect(login.code).toBe(0);
    expect(login.stderr).toContain("the key works; stored in");
    expect(login.stderr).not.toContain(KEY);
    // Piped, nobody reads a prompt: none is printed.
    expect(login.stderr).not.toContain("API key for");
    const file = join(p.state, "auth.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const endpoint = strict.url.href.replace(/\/$/, "");
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({
      apiKey: KEY,
      baseUrl: endpoint,
    });
    const doctor = await dsh(["doctor"], p.env({ DSH_BASE_URL: endpoint }));
    expect(doctor.stdout).toContain("✓ api key: stored by dsh login\n");
    expect(doctor.stdout).not.toContain(KEY);
    // Pointed at another endpoint, doctor warns that the key was checked against this one.
    const moved = await dsh(["doctor"], p.env({ DSH_BASE_URL: "http://127.0.0.1:9/v1" }));
    expect(moved.stdout).toContain(
      `! api key: stored by dsh login for ${endpoint}, but the endpoint is now http://127.0.0.1:9/v1: run dsh login again for this endpoint, or set DSH_BASE_URL back\n`,
    );
  });

  test("a key stored before the endpoint was recorded still loads", async () => {
    const p = place("old-file");
    mkdirSync(p.state, { recursive: true });
    writeFileSync(
      join(p.state, "auth.json"),
      `${JSON.stringify({ version: 1, apiKey: KEY, savedAt: "2026-01-01T00:00:00.000Z" })}\n`,
      { mode: 0o600 },
    );
    const doctor = await dsh(["doctor"], p.env({ DSH_BASE_URL: "http://127.0.0.1:9/v1" }));
    expect(doctor.stdout).toContain("✓ api key: stored by dsh login\n");
  });

  test("a key the endpoint rejects is not stored, and the message says why", async () => {
    const p = place("rejected");
    const login = await dsh(
      ["login"],
      p.env({ DSH_BASE_URL: strict.url.href.replace(/\/$/, "") }),
      "sk-wrong\n",
    );
    expect(login.code).toBe(1);
    expect(login.stderr).toContain(
      "rejected the key (401: Authentication Fails, Your api key is invalid)",
    );
    expect(login.stderr).toContain("nothing was stored");
    expect(() => statSync(join(p.state, "auth.json"))).toThrow();
  });

  test("the stored key is used when no env key is set, and never reaches a command or the log", async () => {
    const p = place("use");
    await using server = await startModelServer();
    expect((await dsh(["login"], p.env({ DSH_BASE_URL: server.url }), `${KEY}\n`)).code).toBe(0);
    server.script(
      toolTurn([
        {
          id: "c1",
          name: "bash",
          args: { command: "env; cat /proc/$PPID/environ | tr '\\0' '\\n'" },
        },
      ]),
      textTurn("done"),
    );
    const exec = await dsh(
      ["exec", "--permission", "danger-full-access", "--cwd", p.project, "show the env"],
      p.env({ DSH_BASE_URL: server.url }),
    );
    expect(exec.code).toBe(0);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${KEY}`,
      `Bearer ${KEY}`,
    ]);
    const toolOutput = JSON.stringify(server.requests[1]?.body.messages);
    expect(toolOutput).toContain("PATH=");
    expect(toolOutput).not.toContain(KEY);
    const logs = readdirSync(join(p.state, "sessions")).filter((f) => f.endsWith(".jsonl"));
    for (const log of logs)
      expect(readFileSync(join(p.state, "sessions", log), "utf8")).not.toContain(KEY);
  });

  test("dsh logout removes the stored key", async () => {
    const p = place("logout");
    await using server = await startModelServer();
    expect((await dsh(["login"], p.env({ DSH_BASE_URL: server.url }), `${KEY}\n`)).code).toBe(0);
    expect(await dsh(["logout"], p.env())).toMatchObject({
      code: 0,
      stderr: "the stored API key was removed\n",
    });
    expect((await dsh(["doctor"], p.env())).stdout).toContain("✗ api key: missing: run dsh login");
  });
});

describe("ACP sign-in", () => {
  test("initialize offers clients with terminal auth the terminal method `--login`", async () => {
    await using server = await startModelServer();
    await using withTerminal = await spawnAcp({ baseUrl: server.url });
    const terminal = await withTerminal.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { auth: { terminal: true } },
    });
    expect(terminal.authMethods).toEqual([
      {
        id: "dsh-login",
        name: "Log in with an API key",
        description: "Paste your DeepSeek (or OpenAI-compatible) API key; dsh checks and stores it",
        type: "terminal",
        args: ["--login"],
      },
    ]);
    expect(withTerminal.problems).toEqual([]);
  });

  test("logout removes the stored key: the next session/new asks to sign in", async () => {
    const p = place("acp-logout");
    await using server = await startModelServer();
    expect((await dsh(["login"], p.env({ DSH_BASE_URL: server.url }), `${KEY}\n`)).code).toBe(0);
    const stored = join(p.state, "auth.json");
    expect(statSync(stored).isFile()).toBe(true);
    await using agent = await spawnKeylessAcp(p);
    const init = await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    expect(init.agentCapabilities?.auth).toEqual({ logout: {} });
    expect(
      await agent.agent.request(acp.methods.agent.authenticate, { methodId: "dsh-login" }),
    ).toEqual({});
    expect(await agent.agent.request(acp.methods.agent.logout, {})).toEqual({});
    expect(() => statSync(stored)).toThrow();
    const refused = await agent.agent
      .request(acp.methods.agent.session.new, { cwd: p.project, mcpServers: [] })
      .catch((error: unknown) => error);
    expect((refused as acp.RequestError).code).toBe(-32000);
    // Signed out already: logout again still succeeds.
    expect(await agent.agent.request(acp.methods.agent.logout, {})).toEqual({});
    expect(agent.problems).toEqual([]);
  });

  test("a client without terminal auth is offered the agent method; the legacy _meta flag counts as terminal auth", async () => {
    await using server = await startModelServer();
    const methodsFor = async (clientCapabilities?: acp.ClientCapabilities) => {
      await using plain = await spawnAcp({ baseUrl: server.url });
      const init = await plain.agent.request(acp.methods.agent.initialize, {
        protocolVersion: 1,
        ...(clientCapabilities === undefined ? {} : { clientCapabilities }),
      });
      expect(plain.problems).toEqual([]);
      return init.authMethods?.map((m) => [m.id, "type" in m ? m.type : "agent"]);
    };
    expect(await methodsFor()).toEqual([["dsh-login", "agent"]]);
    expect(await methodsFor({ _meta: { "terminal-auth": true } })).toEqual([
      ["dsh-login", "terminal"],
    ]);
  });

  test("with no key session/new answers auth_required; after dsh acp --login the same connection works", async () => {
    const p = place("acp");
    await using server = await startModelServer();
    // The default model is remote (so it needs a key); `local` is the test server.
    writeFileSync(
      join(p.base, "config.toml"),
      `base_url = "https://api.deepseek.com"\n[[models]]\nid = "local"\nbase_url = "${server.url}"\n`,
    );
    await using agent = await spawnKeylessAcp(p);
    await agent.agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { auth: { terminal: true } },
    });
    const refused = await agent.agent
      .request(acp.methods.agent.session.new, { cwd: p.project, mcpServers: [] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(acp.RequestError);
    expect((refused as acp.RequestError).code).toBe(-32000);
    expect((refused as acp.RequestError).message).toContain("dsh login");
    expect((refused as acp.RequestError).message).toContain("DSH_API_KEY");
    const notYet = await agent.agent
      .request(acp.methods.agent.authenticate, { methodId: "dsh-login" })
      .catch((error: unknown) => error);
    expect((notYet as acp.RequestError).code).toBe(-32000);
    // What the editor does for the terminal method: run `dsh acp --login` for the user (the
    // key is checked against the `local` model's server, named by DSH_MODEL here).
    const login = await dsh(
      ["acp", "--login"],
      p.env({ DSH_CONFIG: join(p.base, "config.toml"), DSH_MODEL: "local" }),
      `${KEY}\n`,
    );
    expect(login.code).toBe(0);
    expect(
      await agent.agent.request(acp.methods.agent.authenticate, { methodId: "dsh-login" }),
    ).toEqual({});
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, {
      cwd: p.project,
      mcpServers: [],
    });
    await agent.agent.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: "model",
      value: "local",
    });
    server.script(textTurn("signed in"));
    expect(
      await agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "hi" }],
      }),
    ).toEqual({ stopReason: "end_turn" });
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(agent.problems).toEqual([]);
  });

  test("a default model on this machine needs no sign-in", async () => {
    await using server = await startModelServer();
    await using agent = await spawnAcp({
      baseUrl: server.url,
      apiKey: "",
      env: { DEEPSEEK_API_KEY: "" },
    });
    await agent.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    const { sessionId } = await agent.agent.request(acp.methods.agent.session.new, {
      cwd: agent.cwd,
      mcpServers: [],
    });
    server.script(textTurn("no key needed"));
    expect(
      await agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "hi" }],
      }),
    ).toEqual({ stopReason: "end_turn" });
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });
});
