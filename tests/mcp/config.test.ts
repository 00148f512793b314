import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/app/config.ts";
import { mergeServers } from "../../src/mcp/types.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "dsh-mcp-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function load(toml: string) {
  const path = join(dir, "config.toml");
  writeFileSync(path, toml);
  return loadConfig({ HOME: dir, DSH_CONFIG: path });
}

function problem(toml: string): string {
  try {
    load(toml);
  } catch (error) {
    if (error instanceof ConfigError)
      return error.message.slice(join(dir, "config.toml").length).replace(/^(:\d+)?: /, "");
    throw error;
  }
  return "accepted";
}

describe("[mcp_servers] in the config file", () => {
  test("stdio and HTTP tables become servers in file order; disabled ones are left out", () => {
    const config = load(`
mcp_startup_timeout_ms = 2500
mcp_tool_timeout_ms = 9000

[mcp_servers.github]
command = "github-mcp-server"
args = ["stdio"]
env = { GITHUB_TOKEN = "t" }

[mcp_servers.docs]
url = "https://example.com/mcp"
headers = { Authorization = "Bearer x" }

[mcp_servers.old]
url = "https://example.com/sse"
transport = "sse"

[mcp_servers.off]
command = "x"
enabled = false
`);
    expect(config.mcp).toEqual({
      servers: [
        {
          transport: "stdio",
          name: "github",
          command: "github-mcp-server",
          args: ["stdio"],
          env: { GITHUB_TOKEN: "t" },
        },
        {
          transport: "http",
          name: "docs",
          url: "https://example.com/mcp",
          headers: { Authorization: "Bearer x" },
        },
        { transport: "sse", name: "old", url: "https://example.com/sse", headers: {} },
      ],
      startupTimeoutMs: 2500,
      toolTimeoutMs: 9000,
    });
  });

  test("defaults: no servers, 10 s to start, 120 s per call", () => {
    expect(load("").mcp).toEqual({ servers: [], startupTimeoutMs: 10_000, toolTimeoutMs: 120_000 });
  });

  test("a table that is neither stdio nor HTTP, or mixes them, is a clear error", () => {
    expect([
      problem("[mcp_servers.a]\nargs = []\n"),
      problem('[mcp_servers.a]\ncommand = "x"\nurl = "https://x"\n'),
      problem('[mcp_servers.a]\ncommand = "x"\nheaders = { A = "b" }\n'),
      problem('[mcp_servers.a]\nurl = "not a url"\n'),
      problem('[mcp_servers.a]\ncommand = "x"\ntimeout = 5\n'),
      problem("mcp_startup_timeout_ms = 0\n"),
    ]).toEqual([
      "mcp_servers.a: a server needs either command (stdio) or url (HTTP), not both",
      "mcp_servers.a: a server needs either command (stdio) or url (HTTP), not both",
      "mcp_servers.a: headers and transport go with url",
      "mcp_servers.a.url: url is not a URL",
      'unknown key "mcp_servers.a.timeout"; allowed keys here: command, args, env, url, headers, transport, enabled',
      "mcp_startup_timeout_ms: Invalid value: Expected >=100 but received 0",
    ]);
  });

  test("the editor's server wins a name clash with the config file's", () => {
    const file = {
      transport: "stdio" as const,
      name: "a",
      command: "from-file",
      args: [],
      env: {},
    };
    const other = { ...file, name: "b" };
    const editor = { ...file, command: "from-editor" };
    expect(
      mergeServers([file, other], [editor]).map((s) => [s.name, "command" in s ? s.command : ""]),
    ).toEqual([
      ["a", "from-editor"],
      ["b", "from-file"],
    ]);
  });
});
