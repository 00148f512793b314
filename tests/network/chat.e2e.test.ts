/** A network question in `dsh chat` through the compiled binary: one line naming the host and the command. */
import { afterAll, beforeAll, expect } from "bun:test";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import { sandboxSerialTest } from "../support/sandbox-gate.ts";
import { type TargetServer, startTarget } from "../support/target-server.ts";

let rig: CliRig;
let target: TargetServer;
beforeAll(async () => {
  rig = await startCliRig("dsh-net-chat");
  target = startTarget("127.0.0.2");
});
afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await target[Symbol.asyncDispose]();
  await rig[Symbol.asyncDispose]();
});

sandboxSerialTest("asks in one line; y lets that command connect", async () => {
  const project = rig.project("chat-network");
  const { cwd } = project;
  const command = `curl -sS http://${target.authority}/from-chat`;
  rig.server.script(toolTurn([{ id: "b1", name: "bash", args: { command } }]), textTurn("fetched"));
  const { proc, stdout, say } = rig.chat(project);
  await say("fetch it");
  const question =
    `? Let \`${command}\` connect to ${target.authority} (127.0.0.2 is a loopback address (a ` +
    `service on this machine)) [y: once, a: Always allow \`${target.authority}\` in ${cwd}, N: no] `;
  await stdout.waitFor(question);
  const line = stdout
    .text()
    .split("\n")
    .find((l) => l.startsWith("? Let"));
  expect(line).toBe(question);
  await say("y");
  await stdout.waitFor("fetched");
  proc.stdin.end();
  expect(await proc.exited).toBe(0);
  expect(target.log).toEqual(["/from-chat"]);
});
