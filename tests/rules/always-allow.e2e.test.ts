/**
 * "Always allow" through the compiled binary: the editor picks the option whose label names
 * the rule, dsh saves it for the project, and later processes in that project run what it
 * covers without asking, and ask for anything else.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import {
  type PermissionAnswer,
  dshRules as rulesOf,
  spawnAnswering,
} from "../support/answering-acp.ts";
import { ensureBinary } from "../support/binary.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-rules-")));
const state = join(root, "state");
const user = join(root, "user");
mkdirSync(user);
beforeAll(async () => {
  await ensureBinary();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function project(name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, ".git"), { recursive: true });
  return dir;
}

/**
 * Runs one escalated command in `cwd` through a fresh `dsh acp`, answering a permission request
 * with `answer` (the option kind to pick); returns what was asked.
 */
async function escalate(
  cwd: string,
  command: string,
  answer: PermissionAnswer,
): Promise<acp.RequestPermissionRequest[]> {
  await using server = await startModelServer();
  server.script(
    toolTurn([
      { id: "b1", name: "bash", args: { command, escalate: true, justification: "test" } },
    ]),
    textTurn("done"),
  );
  const { dsh, asked } = await spawnAnswering({ state, user }, server.url, answer);
  await using _dsh = dsh;
  const { sessionId } = await dsh.agent.request("session/new", { cwd, mcpServers: [] });
  const reply = await dsh.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "go" }],
  });
  expect(reply).toEqual({ stopReason: "end_turn" });
  expect(dsh.problems).toEqual([]);
  return asked;
}

const dshRules = (...args: string[]) => rulesOf({ state, user }, ...args);

describe("always allow", () => {
  const app = project("app");
  const other = project("other");
  writeFileSync(join(root, "none.toml"), "");

  test("the option names the rule; choosing it runs the command and saves the rule for the project", async () => {
    const asked = await escalate(app, "touch made-1", "allow_always");
    expect(asked.map((p) => p.options.map((o) => [o.kind, o.name]))).toEqual([
      [
        ["allow_once", "Allow once"],
        ["allow_always", `Always allow \`touch made-1\` outside the sandbox in ${app}`],
        ["reject_once", "Reject"],
      ],
    ]);
    expect(existsSync(join(app, "made-1"))).toBe(true);
    const saved = JSON.parse(readFileSync(join(state, "rules.json"), "utf8"));
    expect(saved.projects).toEqual({
      [app]: [{ type: "command", words: ["touch", "made-1"], where: "outside_sandbox" }],
    });
  });

  test("a new process in the same project runs the covered command without asking", async () => {
    rmSync(join(app, "made-1"), { force: true });
    expect(await escalate(app, "touch made-1", "reject_once")).toEqual([]);
    expect(existsSync(join(app, "made-1"))).toBe(true);
  });

  test("the same command with `; touch x` appended asks, and a reject runs nothing", async () => {
    rmSync(join(app, "made-1"), { force: true });
    const asked = await escalate(app, "touch made-1; touch x", "reject_once");
    expect(asked).toHaveLength(1);
    expect([existsSync(join(app, "made-1")), existsSync(join(app, "x"))]).toEqual([false, false]);
  });

  test("another project asks", async () => {
    expect(await escalate(other, "touch made-1", "reject_once")).toHaveLength(1);
    expect(existsSync(join(other, "made-1"))).toBe(false);
  });

  test("dsh rules lists the rule with its project, and dsh rules rm restores asking", async () => {
    const listed = await dshRules();
    expect(listed).toEqual({
      code: 0,
      stdout: `  1  ${app}  run \`touch made-1\` outside the sandbox\n`,
    });
    expect(await dshRules("rm", "1")).toEqual({
      code: 0,
      stdout: `removed rule 1: run \`touch made-1\` outside the sandbox in ${app}\n`,
    });
    expect(await escalate(app, "touch made-1", "reject_once")).toHaveLength(1);
  });
});
