/**
 * MCP server commands found where a sandboxed command could have put them, through the
 * compiled binary: an activated virtualenv inside the project and a relative
 * `node_modules/.bin` on PATH, and a relative command path. A server runs outside the sandbox,
 * so none of these is started; each is refused naming the entry, the servers that do start
 * get a PATH without those entries, and an absolute path in the user's config runs as given.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { STDIO_SERVER, serverLog } from "../mcp/rig.ts";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn } from "../support/model-server.ts";

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-mcp-path");
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

/** An executable shell script at `path` running `body`. */
function script(path: string, body: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

test("a server command on a PATH entry in the project, or relative, is refused naming it", async () => {
  const project = rig.project("path");
  const { cwd, base } = project;
  const planted = (name: string) => join(base, `ran-${name}`);
  // What a model's sandboxed commands could have written.
  script(join(cwd, ".venv/bin/mcp-x"), `touch ${planted("venv")}`);
  script(join(cwd, "node_modules/.bin/mcp-y"), `touch ${planted("relative")}`);
  script(join(cwd, "scripts/mcp.sh"), `touch ${planted("script")}`);
  // The user's own: the same name outside the project, and an absolute path inside it.
  const log = join(base, "good.log");
  const serve = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(STDIO_SERVER)}`;
  script(join(base, "tools/bin/mcp-x"), `${serve} good`);
  script(join(cwd, "tools/own-server"), `touch ${planted("absolute")}; ${serve} own`);
  writeFileSync(
    join(base, "config.toml"),
    [
      '[mcp_servers.good]\ncommand = "mcp-x"',
      `env = { MCP_TEST_LOG = ${JSON.stringify(log)} }`,
      '[mcp_servers.rel]\ncommand = "mcp-y"',
      '[mcp_servers.local]\ncommand = "./scripts/mcp.sh"',
      `[mcp_servers.own]\ncommand = ${JSON.stringify(join(cwd, "tools/own-server"))}`,
      "",
    ].join("\n"),
  );
  const PATH = [
    join(cwd, ".venv/bin"),
    "node_modules/.bin",
    join(base, "tools/bin"),
    process.env.PATH ?? "/usr/bin:/bin",
  ].join(":");
  rig.server.script(textTurn("done"));
  const run = await rig.run(["exec", "hello"], project, {
    env: { ...project.env, PATH, DSH_PERMISSION: "danger-full-access" },
  });
  expect(run.code).toBe(0);
  expect(run.stderr).toContain(
    `MCP server rel did not start: mcp-y would run from node_modules/.bin, a relative PATH entry`,
  );
  expect(run.stderr).toContain(
    `MCP server local did not start: ./scripts/mcp.sh would run from ${join(cwd, "scripts/mcp.sh")}, inside the project`,
  );
  expect(
    ["venv", "relative", "script", "absolute"].map((name) => existsSync(planted(name))),
  ).toEqual([false, false, false, true]);
  // The same name outside the project started, and its PATH holds none of the entries.
  const [started] = serverLog(log).starts;
  expect(started?.env.PATH).toBe([join(base, "tools/bin"), process.env.PATH].join(":"));
});

test("a name found only in the project's virtualenv is refused, naming the entry", async () => {
  const project = rig.project("venv-only");
  const { cwd, base } = project;
  script(join(cwd, ".venv/bin/mcp-only"), `touch ${join(base, "ran")}`);
  writeFileSync(join(base, "config.toml"), '[mcp_servers.only]\ncommand = "mcp-only"\n');
  rig.server.script(textTurn("done"));
  const run = await rig.run(["exec", "hello"], project, {
    env: { ...project.env, PATH: `${join(cwd, ".venv/bin")}:${process.env.PATH}` },
  });
  expect(run.stderr).toContain(
    `MCP server only did not start: mcp-only would run from ${join(cwd, ".venv/bin")}, a PATH entry inside the project ${cwd}`,
  );
  expect(existsSync(join(base, "ran"))).toBe(false);
});
