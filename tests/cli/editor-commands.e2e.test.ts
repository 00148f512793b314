/** The slash commands, the plan checklist and `dsh sessions rm` in the terminal, over the binary. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-editor-cli");
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

test("dsh chat runs the shared commands beside /help and prints the plan as a checklist", async () => {
  const { proc, stdout, say } = rig.chat(rig.project("chat-commands"));
  const requests = rig.server.requests.length;
  await say("/help");
  await stdout.waitFor("/status");
  await say("/status");
  await stdout.waitFor("- MCP servers: none");
  expect(rig.server.requests.length).toBe(requests);
  await say("/model my-local-model");
  await stdout.waitFor("model: my-local-model (not in the catalog: generic settings)");
  await say("/model deepseek-flash");
  await stdout.waitFor("model: deepseek-flash\n");
  const todos = [
    { content: "Read the code", status: "completed" },
    { content: "Fix the bug", status: "in_progress" },
    { content: "Run the tests", status: "pending" },
  ];
  rig.server.script(
    toolTurn([{ id: "p1", name: "todo_write", args: { todos } }]),
    textTurn("on it"),
  );
  await say("fix the bug");
  await stdout.waitFor("on it");
  expect(stdout.text()).toContain(
    "Plan:\n  [x] Read the code\n  [>] Fix the bug\n  [ ] Run the tests\n",
  );
  proc.stdin.end();
  expect(await proc.exited).toBe(0);
  expect(stdout.text()).toContain("/compact [focus]  ");
});

test("dsh sessions rm ID deletes a session for good; an unknown id is an error", async () => {
  const project = rig.project("sessions-rm");
  rig.server.script(textTurn("hello"));
  const first = await rig.run(["exec", "keep me?"], project);
  const id = /session ([0-9a-f-]{36})/.exec(first.stderr)?.[1] ?? "";
  expect((await rig.run(["sessions"], project)).stdout).toContain(id);
  const removed = await rig.run(["sessions", "rm", id], project);
  expect(removed).toEqual({ code: 0, stdout: `deleted session ${id}\n`, stderr: "" });
  expect((await rig.run(["sessions"], project)).stdout).toBe(
    `no saved sessions in ${project.cwd}\n`,
  );
  const again = await rig.run(["sessions", "rm", id], project);
  expect({ code: again.code, stderr: again.stderr }).toEqual({
    code: 1,
    stderr: `dsh: no session ${id}\n`,
  });
  expect((await rig.run(["sessions", "rm"], project)).code).toBe(2);
});
