/**
 * The network of sandboxed commands through the compiled binary (`dsh exec`, nobody to ask),
 * against servers on loopback addresses allowed by address in the config: curl, git over smart
 * HTTP, npm and pip reach them through the proxy; a denied host and an unknown one fail with
 * the reason in the command's result; a command that ignores the proxy has no way out; and
 * danger-full-access keeps the host's network.
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { createSocket } from "node:dgram";
import { type CliProject, type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import {
  PACKAGE,
  type PackageServer,
  realPython,
  startGitServer,
  startNpmRegistry,
  startPythonIndex,
} from "../support/package-servers.ts";
import { runIf } from "../support/gate.ts";
import { sandboxSerialTest } from "../support/sandbox-gate.ts";
import { type TargetServer, startTarget } from "../support/target-server.ts";

const python = realPython();
const pythonTest = runIf(python !== undefined, sandboxSerialTest, "no python3 with pip here");
let rig: CliRig;
let target: TargetServer;
let gitHost: PackageServer & { head: string };
let registry: PackageServer;
let index: PackageServer | undefined;
let config = "";

beforeAll(async () => {
  rig = await startCliRig("dsh-net-exec");
  target = startTarget("127.0.0.2");
  gitHost = startGitServer("127.0.0.3");
  registry = startNpmRegistry("127.0.0.4");
  index = python === undefined ? undefined : startPythonIndex("127.0.0.5", python);
  const allow = [target.authority, gitHost.authority, registry.authority, index?.authority ?? ""];
  config = `[network]\nallow = ${JSON.stringify(allow.filter((a) => a !== ""))}\ndeny = ["denied.test"]\n`;
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  for (const server of [target, gitHost, registry, index]) await server?.[Symbol.asyncDispose]();
  await rig[Symbol.asyncDispose]();
});

/** Runs `command` through the model's bash tool in `dsh exec`; resolves with the tool's result. */
async function bash(project: CliProject, command: string, flags: string[] = []): Promise<string> {
  rig.server.script(
    toolTurn([{ id: "b1", name: "bash", args: { command, timeout_ms: 120_000 } }]),
    textTurn("done"),
  );
  const before = rig.server.requests.length;
  const run = await rig.run(["exec", ...flags, "go"], project);
  expect(run.code).toBe(0);
  const request = rig.server.requests[before + 1];
  const messages = (request?.body.messages ?? []) as { role: string; content: string }[];
  const content = messages.find((message) => message.role === "tool")?.content ?? "";
  return content.replace(/; \d+\.\d s\]/, "; TIME]");
}

describe("dsh exec: sandboxed commands and the network", () => {
  sandboxSerialTest(
    "curl reaches an allowed host; a denied and an unknown one fail with why",
    async () => {
      const project = rig.project("curl", config);
      const result = await bash(
        project,
        `curl -sS http://${target.authority}/hello; curl -sS -o /dev/null -w '%{http_code}\\n' http://denied.test/; ` +
          "curl -sS https://unknown.test/ 2>&1 | tail -n 1",
      );
      expect(result).toBe(
        "[exit code 0; sandbox: workspace-write; TIME]\n" +
          "hello from 127.0.0.2 /hello\n403\n" +
          "curl: (56) CONNECT tunnel failed, response 403\n\n" +
          `[network: the proxy refused denied.test:80: denied.test is denied by [network] deny ("denied.test") in ${project.base}/config.toml]\n` +
          "[network: the proxy refused unknown.test:443: unknown.test:443 is not allowed: [network] " +
          "allow does not list it, and the user did not allow it (or nobody could be asked)]",
      );
    },
  );

  sandboxSerialTest("git clones and fetches over smart HTTP through the proxy", async () => {
    const project = rig.project("git", config);
    const result = await bash(
      project,
      // Into the private /tmp: the sandbox removes git repositories made in the workspace.
      `git clone -q http://${gitHost.authority}/repo.git /tmp/r && git -C /tmp/r fetch -q origin && ` +
        "git -C /tmp/r rev-parse HEAD && cat /tmp/r/README",
    );
    expect(result).toBe(
      `[exit code 0; sandbox: workspace-write; TIME]\n${gitHost.head}\nserved over smart HTTP\n`,
    );
    expect(gitHost.log.some((path) => path.startsWith("/repo.git/git-upload-pack"))).toBe(true);
  });

  sandboxSerialTest("npm view reads the local registry through the proxy", async () => {
    const project = rig.project("npm", config);
    const result = await bash(
      project,
      `npm_config_cache=/tmp/npm npm view ${PACKAGE.name} version --registry ${registry.url}/ 2>&1`,
    );
    expect(result).toBe(`[exit code 0; sandbox: workspace-write; TIME]\n${PACKAGE.version}\n`);
  });

  pythonTest("pip downloads from the local simple index through the proxy", async () => {
    const project = rig.project("pip", config);
    const host = index?.authority.split(":")[0] ?? "";
    const result = await bash(
      project,
      `PIP_NO_CACHE_DIR=1 ${python} -m pip download -q --disable-pip-version-check --no-deps ` +
        `-d dl --index-url ${index?.url}/simple/ --trusted-host ${host} dsh-test-pkg 2>&1; ls dl`,
    );
    expect(result).toBe(
      "[exit code 0; sandbox: workspace-write; TIME]\ndsh_test_pkg-1.0-py3-none-any.whl\n",
    );
  });

  sandboxSerialTest(
    "a command that ignores the proxy has no way out: curl --noproxy, UDP",
    async () => {
      const project = rig.project("bypass", config);
      await using direct = startTarget("127.0.0.6");
      const udp = createSocket("udp4");
      const datagrams: string[] = [];
      udp.on("message", (message) => datagrams.push(message.toString()));
      const bound = Promise.withResolvers<void>();
      udp.bind(0, "127.0.0.6", bound.resolve);
      await bound.promise;
      const result = await bash(
        project,
        `curl -sS --noproxy '*' http://${target.authority}/direct 2>&1; ` +
          `python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); ` +
          `s.sendto(b"probe", ("127.0.0.6", ${udp.address().port})); ` +
          `s.sendto(b"probe", ("1.1.1.1", 53))' 2>&1 | tail -n 1`,
      );
      udp.close();
      expect(result).toBe(
        "[exit code 0; sandbox: workspace-write; TIME]\n" +
          `curl: (7) Failed to connect to 127.0.0.2 port ${target.port} after 0 ms: Couldn't connect to server\n` +
          "OSError: [Errno 101] Network is unreachable\n\n" +
          "[the sandbox has no direct network: connections go through dsh's proxy, which " +
          "HTTP_PROXY, HTTPS_PROXY and ALL_PROXY point at (curl, git over https, npm, pip, cargo, " +
          "go and bun use them); a tool that ignores them, ssh and UDP cannot connect: use one " +
          "that honours them, or call bash again with escalate: true and a justification]",
      );
      expect([datagrams, direct.log, target.log.includes("/direct")]).toEqual([[], [], false]);
    },
  );

  sandboxSerialTest(
    "danger-full-access keeps the host's network and gets no proxy variables",
    async () => {
      const project = rig.project("full", config);
      const result = await bash(
        project,
        `echo "proxy=\${HTTPS_PROXY-none}"; curl -sS --noproxy '*' http://${target.authority}/full`,
        ["--permission", "danger-full-access"],
      );
      expect(result).toBe(
        "[exit code 0; unsandboxed; TIME]\nproxy=none\nhello from 127.0.0.2 /full\n",
      );
    },
  );
});
