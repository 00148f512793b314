/**
 * grep through the compiled binary: its matching runs in a worker thread, which must start
 * inside `bun build --compile` output exactly as it does from source.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import * as v from "valibot";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-grep-bin");
});

afterAll(async () => {
  await rig[Symbol.asyncDispose]();
});

const ToolMessage = v.object({ role: v.literal("tool"), content: v.string() });

test("dsh exec runs grep in the compiled binary and hands the matches to the model", async () => {
  const project = rig.project("grep");
  const { cwd } = project;
  const server = rig.server;
  fs.mkdirSync(path.join(cwd, "src"), { recursive: true });
  fs.writeFileSync(path.join(cwd, "src", "a.ts"), "const x = 1;\nfunction loadAll() {}\n");
  fs.writeFileSync(path.join(cwd, "notes.md"), "nothing here\n");
  server.script(
    toolTurn([{ id: "call_g", name: "grep", args: { pattern: "function\\s+load" } }]),
    textTurn("found it"),
  );
  const { code, stdout, stderr } = await rig.run(["exec", "where is loadAll?"], project);
  expect({ code, stdout, failures: server.failures }).toEqual({
    code: 0,
    stdout: "found it\n",
    failures: [],
  });
  const answer = await server.received(1);
  const messages = v.parse(v.array(v.unknown()), answer.body.messages);
  const results = messages.flatMap((message) => {
    const tool = v.safeParse(ToolMessage, message);
    return tool.success ? [tool.output.content] : [];
  });
  expect({ results, stderr }).toMatchObject({ results: ["src/a.ts:2:function loadAll() {}"] });
});
