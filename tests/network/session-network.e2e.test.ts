/**
 * The compiled `dsh acp` run as an unprivileged user (where bubblewrap, not dsh, makes network
 * namespaces): a server the model starts with `bash` `run_in_background` is reached by a later
 * `bash` call of the same session, and the session's holder ends when dsh does.
 */
import { describe, expect } from "bun:test";
import { existsSync } from "node:fs";
import * as acp from "@agentclientprotocol/sdk";
import { acpSessionRig } from "../support/acp-session.ts";
import { runIf } from "../support/gate.ts";
import { type RecordedRequest, textTurn, toolTurn } from "../support/model-server.ts";
import { sandboxSerialTest } from "../support/sandbox-gate.ts";
import { UNPRIVILEGED_ID } from "../support/unprivileged.ts";
import { backgroundServer } from "../support/background-server.ts";
import { holders } from "./holders.ts";

const PYTHON = "/usr/bin/python3";
const unprivilegedTest = runIf(
  process.getuid?.() === 0 &&
    Bun.which("setpriv") !== null &&
    Bun.which("nsenter") !== null &&
    existsSync(PYTHON),
  sandboxSerialTest,
  `it drops to an unprivileged user with setpriv, which needs root, and needs nsenter and ${PYTHON}`,
);

const rig = acpSessionRig();

function toolMessages(requests: readonly RecordedRequest[]): string[] {
  return requests.map((request) => {
    const messages = (request.body.messages ?? []) as { role: string; content: string }[];
    const content = messages.filter((message) => message.role === "tool").at(-1)?.content ?? "";
    return content.replace(/; \d+\.\d s\]/, "; TIME]");
  });
}

describe("a session's network as an unprivileged user, end to end", () => {
  unprivilegedTest("a background server is reached by the session's next bash call", async () => {
    const { dsh, sessionId } = await rig.start({ terminalOutput: true, asUser: UNPRIVILEGED_ID });
    const before = rig.model().requests.length;
    rig
      .model()
      .script(
        ...backgroundServer(PYTHON, 18_124).turns,
        toolTurn([{ id: "b3", name: "bash_kill", args: { id: "bg-1" } }]),
        textTurn("done"),
      );
    try {
      const answer = await dsh.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "serve and reach it" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      const results = toolMessages(rig.model().requests.slice(before + 1));
      expect(results[0]).toStartWith("id: bg-1\n");
      expect(results[1]).toBe("[exit code 0; sandbox: workspace-write; TIME]\nreached\n");
      expect(holders().length).toBe(1);
      expect(await dsh.closeStdin()).toMatchObject({ code: 0 });
      expect(holders()).toEqual([]);
    } finally {
      await dsh[Symbol.asyncDispose]();
    }
    expect(await dsh.stderr()).not.toContain("network namespace each");
  });
});
