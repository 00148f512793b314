/**
 * How often a package-manager session has to leave the sandbox or ask: one `dsh acp` session
 * whose model runs `bun install`, `git fetch` and `pip download` against local servers (an npm
 * registry, a git smart-HTTP host and a simple index, each its own host), every network question
 * answered "always"; then the same session in a new process. Counts the questions of each run and
 * the commands that failed in the sandbox (each would need an escalation). Goal: no escalation
 * at all, one question per host the first time, none after.
 * Run: bun bench/network-session.ts
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { spawnAnswering } from "../tests/support/answering-acp.ts";
import { startModelServer, textTurn, toolTurn } from "../tests/support/model-server.ts";
import {
  realPython,
  startGitServer,
  startNpmRegistry,
  startPythonIndex,
} from "../tests/support/package-servers.ts";
import { emit } from "./lib/figures.ts";

const python = realPython();
if (python === undefined) {
  console.log("skipped: this benchmark needs python3 with pip");
  process.exit(0);
}
const root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-bench-session-")));
const shared = { state: join(root, "state"), user: join(root, "user") };
mkdirSync(shared.user);
const registry = startNpmRegistry("127.0.0.4");
const gitHost = startGitServer("127.0.0.3");
const index = startPythonIndex("127.0.0.5", python);

// The project is a clone of the local git host (not spawnSync: this process serves it).
const project = join(root, "app");
const clone = Bun.spawn(["git", "clone", "-q", `${gitHost.url}/repo.git`, project]);
if ((await clone.exited) !== 0) throw new Error("git clone of the local host failed");
writeFileSync(
  join(project, "package.json"),
  JSON.stringify({ name: "app", private: true, dependencies: { "dsh-test-pkg": "1.0.0" } }),
);
writeFileSync(join(project, "bunfig.toml"), `[install]\nregistry = "${registry.url}/"\n`);

const host = index.authority.split(":")[0] ?? "";
const commands = [
  "BUN_INSTALL_CACHE_DIR=/tmp/bun-cache bun install",
  "git fetch origin",
  `PIP_NO_CACHE_DIR=1 ${python} -m pip download -q --disable-pip-version-check --no-deps ` +
    `-d /tmp/dl --index-url ${index.url}/simple/ --trusted-host ${host} dsh-test-pkg`,
];

/** One session in a fresh process; its questions and the exit status line of each command. */
async function session(): Promise<{ asked: acp.RequestPermissionRequest[]; statuses: string[] }> {
  await using model = await startModelServer();
  model.script(
    ...commands.map((command, i) => toolTurn([{ id: `b${i}`, name: "bash", args: { command } }])),
    textTurn("done"),
  );
  const { dsh, asked } = await spawnAnswering(shared, model.url, "allow_always");
  await using _dsh = dsh;
  const { sessionId } = await dsh.agent.request("session/new", { cwd: project, mcpServers: [] });
  await dsh.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  const statuses = model.requests.slice(1).map((request) => {
    const messages = (request.body.messages ?? []) as { role: string; content: string }[];
    const content = messages.findLast((m) => m.role === "tool")?.content ?? "";
    if (!content.startsWith("[exit code 0;")) console.log(content);
    return content.split("\n")[0] ?? "";
  });
  return { asked, statuses };
}

try {
  const first = await session();
  const again = await session();
  const failed = [...first.statuses, ...again.statuses].filter(
    (s) => !s.startsWith("[exit code 0;"),
  );
  const escalations = [...first.asked, ...again.asked].filter(
    (question) => !question.options.some((option) => option.name === "Allow once for this command"),
  );
  console.log(`first session: ${first.asked.length} questions; ${first.statuses.join(" ")}`);
  console.log(`new process:   ${again.asked.length} questions; ${again.statuses.join(" ")}`);
  console.log(
    `commands that failed in the sandbox: ${failed.length}; escalation requests: ${escalations.length}`,
  );
  emit([
    {
      name: "network questions, bun install + git fetch + pip download (3 hosts)",
      unit: "questions",
      samples: [first.asked.length],
    },
    {
      name: "network questions, the same in a new process after one always per host",
      unit: "questions",
      samples: [again.asked.length],
      target: { op: "<=", value: 0 },
    },
    {
      name: "escalations the session needed",
      unit: "commands",
      samples: [failed.length + escalations.length],
      target: { op: "<=", value: 0 },
    },
  ]);
} finally {
  for (const server of [registry, gitHost, index]) await server[Symbol.asyncDispose]();
  rmSync(root, { recursive: true, force: true });
}
