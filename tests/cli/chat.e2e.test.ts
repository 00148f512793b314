/** `dsh chat` through the compiled binary with piped stdin: turns, approvals, commands, cancel. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import { watchOutput } from "../support/process-output.ts";

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-chat");
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

function startChat(name: string) {
  const project = rig.project(name, '[[models]]\nid = "second-model"\nname = "Second"\n');
  return { ...rig.chat(project), cwd: project.cwd, base: project.base };
}

test("a conversation: two turns, a model switch, then EOF exits 0", async () => {
  const chat = startChat("conversation");
  rig.server.script(textTurn("first reply"));
  await chat.say("hello");
  await chat.stdout.waitFor("first reply");
  await chat.say("/effort low");
  await chat.stdout.waitFor("effort: low");
  await chat.say("/effort extreme");
  await chat.stderr.waitFor("dsh: unknown effort extreme (off, low, high, max)");
  // A model dsh does not know has no effort setting to switch.
  await chat.say("/model second-model");
  await chat.stdout.waitFor("model: second-model");
  await chat.say("/effort high");
  await chat.stderr.waitFor("dsh: model second-model has no reasoning effort setting");
  rig.server.script(textTurn("second reply"));
  await chat.say("and again");
  await chat.stdout.waitFor("second reply");
  chat.proc.stdin.end();
  expect(await chat.proc.exited).toBe(0);
  expect(rig.server.requests.at(-1)?.body.model).toBe("second-model");
  const roles = (rig.server.requests.at(-1)!.body.messages as { role: string }[]).map(
    (m) => m.role,
  );
  expect(roles).toEqual(["system", "user", "assistant", "user"]);
});

test("an approval answered y lets a write outside the project happen; n refuses it", async () => {
  const chat = startChat("approval");
  const outside = join(chat.base, "outside.txt");
  const refused = join(chat.base, "refused.txt");
  rig.server.script(
    toolTurn([{ id: "w1", name: "write_file", args: { path: outside, content: "yes\n" } }]),
    textTurn("wrote it"),
  );
  await chat.say("write outside");
  await chat.stdout.waitFor("Allow? [y/a/N]");
  expect(chat.stdout.text()).toContain("@@ new file\n  + yes\n");
  // The offered rule, quoted as `dsh rules` will list it.
  expect(chat.stdout.text()).toContain(
    `a: always allow: saves the rule "write files in ${chat.base}" for ${chat.base}/project\n`,
  );
  await chat.say("y");
  await chat.stdout.waitFor("wrote it");
  expect(readFileSync(outside, "utf8")).toBe("yes\n");

  rig.server.script(
    toolTurn([{ id: "w2", name: "write_file", args: { path: refused, content: "no\n" } }]),
    textTurn("could not"),
  );
  await chat.say("write again");
  await chat.stdout.waitFor(`Write ${refused}`);
  await chat.stdout.waitFor("Allow? [y/a/N] ");
  await chat.say("n");
  await chat.stdout.waitFor("could not");
  chat.proc.stdin.end();
  expect(await chat.proc.exited).toBe(0);
  expect(existsSync(refused)).toBe(false);
});

/** Sends SIGINT to a chat whose turn runs; proves the turn ended cancelled and the chat goes on. */
async function interruptAndGoOn(chat: ReturnType<typeof startChat>): Promise<void> {
  chat.proc.kill("SIGINT");
  await chat.stderr.waitFor("dsh: cancelled");
  rig.server.script(textTurn("still here"));
  await chat.say("are you there?");
  await chat.stdout.waitFor("still here");
  chat.proc.stdin.end();
  expect(await chat.proc.exited).toBe(0);
}

test("SIGINT cancels the running turn and the chat goes on", async () => {
  const chat = startChat("cancel");
  rig.server.script({
    respond: { stream: [{ text: "thinking about it" }, { until: new Promise(() => {}) }] },
  });
  await chat.say("long task");
  await chat.stdout.waitFor("thinking about it");
  await interruptAndGoOn(chat);
});

test("SIGINT cancels a /compact turn as it cancels a prompt", async () => {
  const chat = startChat("cancel-compact");
  rig.server.script(textTurn("hello"));
  await chat.say("hi");
  await chat.stdout.waitFor("hello");
  rig.server.script({ respond: { hang: true } });
  const summary = rig.server.received(rig.server.requests.length);
  await chat.say("/compact");
  await summary;
  await interruptAndGoOn(chat);
});

test("SIGINT at the idle prompt exits", async () => {
  const chat = startChat("idle-interrupt");
  await chat.stdout.waitFor("Ctrl-D to exit");
  chat.proc.kill("SIGINT");
  expect(await chat.proc.exited).toBe(0);
});

test('dsh chat "PROMPT" sends it as the first message, then reads the rest', async () => {
  const { cwd, env } = rig.project("first-prompt");
  rig.server.script(textTurn("answered the first"), textTurn("answered the second"));
  const before = rig.server.requests.length;
  const proc = Bun.spawn([rig.binary, "chat", "explain", "this repo"], {
    cwd,
    env,
    stdin: new Blob(["and then this\n"]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout = watchOutput(proc.stdout);
  expect(await proc.exited).toBe(0);
  await stdout.ended;
  expect(stdout.text()).toContain("answered the first");
  expect(stdout.text()).toContain("answered the second");
  const firstMessages = rig.server.requests[before]?.body.messages as { content: string }[];
  expect(firstMessages.at(-1)?.content).toBe("explain this repo");
});
