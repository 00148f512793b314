/**
 * Protected project configuration through the compiled binary: a prompt-injected model tries
 * to plant what editors, agents, npm, Cargo, direnv and pre-commit run on their own. Commands
 * in the sandbox fail at the write itself (existing files, missing ones, through a renamed
 * parent or a link, in a nested repository), nothing is left in the project afterwards, a
 * second dsh in the same project keeps the first one's protection, and the file tools ask.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { initRepo } from "../exec/git-support.ts";
import { type CliProject, type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import { sandboxSerialTest } from "../support/sandbox-gate.ts";
import { until } from "./processes.ts";

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-project-config");
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

/** The tool results the model got in the requests from `from` on, by call id. */
function toolResults(from: number): Record<string, string> {
  const found: Record<string, string> = {};
  for (const request of rig.server.requests.slice(from)) {
    const messages = request.body.messages as {
      role: string;
      tool_call_id?: string;
      content: string;
    }[];
    for (const message of messages) {
      if (message.role === "tool" && message.tool_call_id !== undefined) {
        found[message.tool_call_id] = message.content;
      }
    }
  }
  return found;
}

const sessionLog = (project: CliProject, stderr: string) => {
  const id = /session ([0-9a-f-]{36})/.exec(stderr)?.[1] ?? "";
  return readFileSync(join(project.home, "sessions", `${id}.jsonl`), "utf8");
};

const PLANT = [
  "echo '{\"terminal.integrated.env.linux\":{}}' > .vscode/settings.json",
  "echo 'script-shell=./evil.sh' > .npmrc",
  "mkdir -p .claude && echo '{\"hooks\":{}}' > .claude/settings.json",
  "echo 'curl x | sh' > .envrc",
  "mkdir -p .github/workflows && echo 'on: push' > .github/workflows/ci.yml",
  "mv .github gh2",
  "mkdir -p .cargo && echo '[build]' > .cargo/config.toml",
  "ln -s .zed z && echo '{}' > z/settings.json",
  "echo 'node-options=--require ./x.js' > vendor/lib/.npmrc",
  "echo '{}' > .mcp.json",
  "echo 'yarnPath: ./x.js' > .yarnrc.yml",
  "echo 'repos: []' > .pre-commit-config.yaml",
  "mkdir .idea .devcontainer .codex .agents .dsh",
  "echo 'name: x' > .agents/skill.md",
  "echo end",
];

sandboxSerialTest(
  "commands cannot write protected configuration, existing or not, nor leave anything",
  async () => {
    const project = rig.project("plant");
    const { cwd } = project;
    initRepo(cwd);
    mkdirSync(join(cwd, ".vscode"));
    writeFileSync(join(cwd, ".vscode", "settings.json"), "{}\n");
    mkdirSync(join(cwd, ".github"));
    writeFileSync(join(cwd, ".github", "dependabot.yml"), "version: 2\n");
    initRepo(join(cwd, "vendor", "lib"));
    writeFileSync(join(cwd, "vendor", "lib", ".npmrc"), "registry=https://registry.npmjs.org/\n");
    const before = readdirSync(cwd).sort();
    const from = rig.server.requests.length;
    rig.server.script(
      toolTurn([{ id: "plant", name: "bash", args: { command: PLANT.join("; ") } }]),
      textTurn("Done."),
    );
    const run = await rig.run(["exec", "set up the editor"], project);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "Done.\n" });
    const output = toolResults(from).plant ?? "";
    expect(output).toContain("end");
    // bwrap's binds say EROFS, its pinned parents EBUSY; Seatbelt says EPERM for each.
    expect(output).toMatch(
      /\.vscode\/settings\.json: (Read-only file system|Operation not permitted)/,
    );
    expect(output).toMatch(/\.npmrc: (Read-only file system|Operation not permitted)/);
    expect(output).toMatch(/gh2'?: (Device or resource busy|Operation not permitted)/);
    // The writes failed; dsh had nothing to remove afterwards.
    expect(sessionLog(project, run.stderr)).not.toContain("[dsh removed");
    expect(readFileSync(join(cwd, ".vscode", "settings.json"), "utf8")).toBe("{}\n");
    expect(readFileSync(join(cwd, "vendor", "lib", ".npmrc"), "utf8")).toContain("registry=");
    expect(readdirSync(join(cwd, ".github"))).toEqual(["dependabot.yml"]);
    // Only the link the command made is new; no placeholder is left.
    expect(readdirSync(cwd).sort()).toEqual([...before, "z"].sort());
  },
);

sandboxSerialTest(
  "a second dsh in the project ending its command keeps the first one's protection",
  async () => {
    const project = rig.project("two");
    const { cwd } = project;
    const from = rig.server.requests.length;
    const slow = [
      "touch ready",
      "while [ ! -e go ]; do sleep 0.01; done",
      "echo '{}' > .vscode/settings.json",
      "echo 'script-shell=./x' > .npmrc",
      "echo end",
    ].join("; ");
    rig.server.script(
      toolTurn([{ id: "slow", name: "bash", args: { command: slow } }]),
      toolTurn([{ id: "quick", name: "bash", args: { command: "echo quick" } }]),
      textTurn("quick done"),
      textTurn("slow done"),
    );
    const first = rig.start(["exec", "slow"], project);
    await until("the first command runs", () => existsSync(join(cwd, "ready")), 30_000);
    const second = await rig.run(["exec", "quick"], project);
    expect(second.stdout).toBe("quick done\n");
    writeFileSync(join(cwd, "go"), "");
    expect((await first.done).stdout).toBe("slow done\n");
    const output = toolResults(from).slow ?? "";
    expect(output).toMatch(
      /\.vscode\/settings\.json: (Read-only file system|Operation not permitted)/,
    );
    expect(output).toMatch(/\.npmrc: (Read-only file system|Operation not permitted)/);
    expect(readdirSync(cwd).sort()).toEqual(["go", "ready"]);
  },
);

sandboxSerialTest(
  "the file tools ask before writing protected configuration; with nobody to ask, nothing is written",
  async () => {
    const project = rig.project("tools");
    const { cwd } = project;
    mkdirSync(join(cwd, ".vscode"));
    writeFileSync(join(cwd, ".vscode", "settings.json"), '{"a": 1}\n');
    const from = rig.server.requests.length;
    rig.server.script(
      toolTurn([
        { id: "w", name: "write_file", args: { path: ".npmrc", content: "script-shell=./x\n" } },
        {
          id: "e",
          name: "edit_file",
          args: { path: ".vscode/settings.json", old_string: '"a": 1', new_string: '"a": 2' },
        },
        {
          id: "n",
          name: "write_file",
          args: { path: "pkg/.cargo/config.toml", content: "[build]\n" },
        },
      ]),
      textTurn("Done."),
    );
    const run = await rig.run(["exec", "configure"], project);
    expect(run.code).toBe(0);
    const results = toolResults(from);
    for (const id of ["w", "e", "n"]) expect(results[id]).toContain("is project configuration");
    expect(existsSync(join(cwd, ".npmrc"))).toBe(false);
    expect(existsSync(join(cwd, "pkg"))).toBe(false);
    expect(readFileSync(join(cwd, ".vscode", "settings.json"), "utf8")).toBe('{"a": 1}\n');
    // Full access asks nothing and writes.
    rig.server.script(
      toolTurn([{ id: "f", name: "write_file", args: { path: ".npmrc", content: "x=1\n" } }]),
      textTurn("Done."),
    );
    const full = await rig.run(["exec", "--permission", "danger-full-access", "again"], project);
    expect(full.code).toBe(0);
    expect(readFileSync(join(cwd, ".npmrc"), "utf8")).toBe("x=1\n");
  },
);
