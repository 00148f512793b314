/**
 * Asking about a host, through the compiled `dsh acp` and a real client: the question names the
 * host and the command and sits on the bash call's card; a reject refuses, "allow once" lets
 * that command through, "always" saves a host rule that a new process in the project uses
 * without asking (and `dsh rules` lists and removes); a burst of connections asks once.
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
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
import { sandboxSerialTest } from "../support/sandbox-gate.ts";
import { type TargetServer, startTarget } from "../support/target-server.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "dsh-net-ask-")));
const state = join(root, "state");
const user = join(root, "user");
mkdirSync(user);
let target: TargetServer;
beforeAll(async () => {
  await ensureBinary();
  target = startTarget("127.0.0.2");
});
afterAll(async () => {
  await target[Symbol.asyncDispose]();
  rmSync(root, { recursive: true, force: true });
});

function project(name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, ".git"), { recursive: true });
  return dir;
}

interface Turn {
  readonly asked: acp.RequestPermissionRequest[];
  /** Each bash call's result as the model read it. */
  readonly results: string[];
  readonly status?: string;
}

/**
 * One `dsh acp` process in `cwd`: each of `commands` is one prompt whose bash call runs it;
 * every question is answered with `answer`. With `status`, `/status` runs last.
 */
async function session(
  cwd: string,
  commands: readonly string[],
  answer: PermissionAnswer,
  options: { status?: boolean } = {},
): Promise<Turn> {
  await using server = await startModelServer();
  for (const [i, command] of commands.entries()) {
    server.script(toolTurn([{ id: `b${i}`, name: "bash", args: { command } }]), textTurn("done"));
  }
  const { dsh, asked } = await spawnAnswering({ state, user }, server.url, answer);
  await using _dsh = dsh;
  const { sessionId } = await dsh.agent.request("session/new", { cwd, mcpServers: [] });
  for (const _ of commands) {
    const reply = await dsh.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    expect(reply).toEqual({ stopReason: "end_turn" });
  }
  let status: string | undefined;
  if (options.status === true) {
    const seen = dsh.updates.length;
    await dsh.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/status" }],
    });
    status = dsh.updates
      .slice(seen)
      .flatMap((n) =>
        n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text"
          ? [n.update.content.text]
          : [],
      )
      .join("");
  }
  expect(dsh.problems).toEqual([]);
  const results = server.requests
    .filter((_, i) => i % 2 === 1)
    .map((request) => {
      const messages = (request.body.messages ?? []) as { role: string; content: string }[];
      const content = messages.findLast((m) => m.role === "tool")?.content ?? "";
      return content.replace(/; \d+\.\d s\]/, "; TIME]");
    });
  return { asked, results, ...(status === undefined ? {} : { status }) };
}

const dshRules = (...args: string[]) => rulesOf({ state, user }, ...args);

const curl = (path: string) => `curl -sS http://${target.authority}${path}`;

describe("a host no rule allows", () => {
  sandboxSerialTest(
    "is asked about on the bash call, naming the host and the command; a reject refuses",
    async () => {
      const dir = project("reject");
      const before = target.log.length;
      const turn = await session(dir, [curl("/rejected")], "reject_once");
      expect(turn.asked).toHaveLength(1);
      const question = turn.asked[0];
      expect(question?.toolCall.toolCallId).toBe("b0");
      expect(question?.options.map((o) => [o.kind, o.name])).toEqual([
        ["allow_once", "Allow once for this command"],
        ["allow_always", `Always allow \`${target.authority}\` in ${dir}`],
        ["reject_once", "Reject"],
      ]);
      expect(question?.toolCall.content?.[0]).toEqual({
        type: "content",
        content: {
          type: "text",
          text:
            `Let \`${curl("/rejected")}\` connect to ${target.authority}: 127.0.0.2 is a loopback ` +
            "address (a service on this machine)",
        },
      });
      expect(turn.results).toEqual([
        "[exit code 0; sandbox: workspace-write; TIME]\n" +
          `dsh proxy: ${target.authority} is not allowed: [network] allow does not list it, and the ` +
          "user did not allow it (or nobody could be asked)\n\n" +
          `[network: the proxy refused ${target.authority}: ${target.authority} is not allowed: ` +
          "[network] allow does not list it, and the user did not allow it (or nobody could be asked)]",
      ]);
      expect(target.log.length).toBe(before);
    },
  );

  sandboxSerialTest(
    "allowed once: that command gets through, the next one asks again, /status lists it",
    async () => {
      const dir = project("once");
      const both = `${curl("/once-1")}; ${curl("/once-2")}`;
      const turn = await session(dir, [both, curl("/once-3")], "allow_once", { status: true });
      expect(turn.asked.map((q) => q.toolCall.toolCallId)).toEqual(["b0", "b1"]);
      expect(turn.results).toEqual([
        "[exit code 0; sandbox: workspace-write; TIME]\nhello from 127.0.0.2 /once-1\nhello from 127.0.0.2 /once-2\n",
        "[exit code 0; sandbox: workspace-write; TIME]\nhello from 127.0.0.2 /once-3\n",
      ]);
      expect(turn.status).toContain(`- network: allowed once in this session: ${target.authority}`);
    },
  );

  sandboxSerialTest("a burst of connections from one command asks once", async () => {
    const dir = project("burst");
    const burst = `for i in $(seq 20); do ${curl("/burst")} -o /dev/null -w '%{http_code} ' & done; wait`;
    const turn = await session(dir, [burst], "allow_once");
    expect(turn.asked).toHaveLength(1);
    expect(turn.results[0]).toBe(
      `[exit code 0; sandbox: workspace-write; TIME]\n${"200 ".repeat(20)}`,
    );
  });

  sandboxSerialTest(
    "always: saved for the project, used by a new process without asking, listed and removed by dsh rules",
    async () => {
      const dir = project("always");
      const first = await session(dir, [curl("/always-1")], "allow_always");
      expect(first.asked).toHaveLength(1);
      expect(first.results[0]).toContain("hello from 127.0.0.2 /always-1");
      const again = await session(dir, [curl("/always-2")], "reject_once", { status: true });
      expect(again.asked).toEqual([]);
      expect(again.results[0]).toContain("hello from 127.0.0.2 /always-2");
      expect(again.status).toContain(`- network: saved rules: ${target.authority}`);
      const other = await session(project("always-other"), [curl("/other")], "reject_once");
      expect(other.asked).toHaveLength(1);
      const rule = `let sandboxed commands and web_fetch connect to ${target.authority}`;
      expect(await dshRules()).toEqual({ code: 0, stdout: `  1  ${dir}  ${rule}\n` });
      expect(await dshRules("rm", "1")).toEqual({
        code: 0,
        stdout: `removed rule 1: ${rule} in ${dir}\n`,
      });
      const removed = await session(dir, [curl("/always-3")], "reject_once");
      expect(removed.asked).toHaveLength(1);
    },
  );
});
