/**
 * A saved "always allow `git status`" rule through the compiled binary, in `dsh exec` where
 * nobody can answer: the plain command runs outside the sandbox unasked, and no shell text that
 * hides another command behind quoted or escaped operators, comments or continuations gets past
 * the rule. Each is refused, and its marker file is never made.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliProject, type CliRig, startCliRig } from "../support/cli.ts";
import { type RecordedRequest, textTurn, toolTurn } from "../support/model-server.ts";

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-rule-escapes");
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

const ESCALATION_DENIED = "The user did not allow running this command outside the sandbox";

/** A project whose rule book holds `git status` as an older dsh saved it (no place named). */
function projectWithRule(name: string): CliProject {
  const project = rig.project(name);
  mkdirSync(project.home, { recursive: true });
  const rules = { [project.cwd]: [{ type: "command", words: ["git", "status"] }] };
  writeFileSync(join(project.home, "rules.json"), JSON.stringify({ version: 1, projects: rules }));
  return project;
}

/** The text of the tool result the model got back in `request`. */
function toolResult(request: RecordedRequest | undefined): string {
  const messages = (request?.body.messages ?? []) as { role?: string; content?: unknown }[];
  const result = messages.findLast((message) => message.role === "tool");
  return typeof result?.content === "string" ? result.content : JSON.stringify(result?.content);
}

/** Runs one escalated command in a fresh project through `dsh exec`; returns what the model saw. */
async function escalate(name: string, command: string): Promise<{ cwd: string; result: string }> {
  const project = projectWithRule(name);
  const before = rig.server.requests.length;
  rig.server.script(
    toolTurn([{ id: "b1", name: "bash", args: { command, escalate: true, justification: "x" } }]),
    textTurn("done"),
  );
  const run = await rig.run(["exec", "check the repository"], project);
  expect([run.code, run.stdout]).toEqual([0, "done\n"]);
  return { cwd: project.cwd, result: toolResult(rig.server.requests[before + 1]) };
}

describe("a saved `git status` rule in dsh exec", () => {
  test("runs `git status` itself outside the sandbox without asking", async () => {
    const { result } = await escalate("plain", "git status");
    expect([result.includes(ESCALATION_DENIED), result.includes("unsandboxed")]).toEqual([
      false,
      true,
    ]);
  });

  const escapes: [string, string][] = [
    ["quoted >", "git status '>'&touch X"],
    ["escaped >", "git status \\>&touch X"],
    ["quote in a comment", "git status #'\ntouch X\n#'"],
    ["continuation in a comment", "git status # note \\\ntouch X"],
    ["quoted <", "git status '<'&touch X"],
    ["escaped &", "git status \\&&touch X"],
    ["comment after ;", "git status;# x\ntouch X"],
    ["CR before a newline", "git status \\\r\ntouch X"],
    ["here-document", "git status <<EOF\n$(touch X)\nEOF"],
    ["expansion", "git status ${x:-$(touch X)}"],
  ];
  for (const [name, command] of escapes) {
    test(`does not let ${JSON.stringify(command)} (${name}) run: refused, no marker`, async () => {
      const { cwd, result } = await escalate(name.replaceAll(/[^a-z]+/g, "-"), command);
      expect([existsSync(join(cwd, "X")), result.includes(ESCALATION_DENIED)]).toEqual([
        false,
        true,
      ]);
    });
  }
});
