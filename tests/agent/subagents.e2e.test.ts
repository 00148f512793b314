/**
 * Subagents (`task`) through the compiled `dsh acp` and the scripted model: an explore child's
 * requests carry only the reading tools and a fresh history, and its answer is the task's
 * result; two tasks of one response overlap; a cancel stops both (no further requests); the
 * child's cost is in `usage_update`; a custom agent gets exactly its tools; `session/load`
 * replays the task's card with its steps.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { readLog } from "../permission/rig.ts";
import { type AcpProcess, spawnAcp } from "../support/acp-process.ts";
import { zedInitialize } from "../support/acp-harness.ts";
import { acpSessionRig } from "../support/acp-session.ts";
import { startCliRig } from "../support/cli.ts";
import { sandboxSerialTest } from "../support/sandbox-gate.ts";
import {
  type RecordedRequest,
  type ScriptedTurn,
  textTurn,
  toolTurn,
} from "../support/model-server.ts";

const m = acp.methods.agent.session;

const rig = acpSessionRig();
const start = (setup?: (cwd: string) => void) => rig.start(setup === undefined ? {} : { setup });

/** A fresh session, the index its first model request will have, and the model's script. */
async function session(setup?: (cwd: string) => void) {
  const started = await start(setup);
  const model = rig.model();
  return {
    ...started,
    before: model.requests.length,
    script: (...turns: ScriptedTurn[]) => model.script(...turns),
  };
}

const prompt = (dsh: AcpProcess, sessionId: string, text: string) =>
  dsh.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text }] });

type Message = { role: string; content: unknown; tool_calls?: unknown };
const messagesOf = (request: RecordedRequest | undefined) =>
  (request?.body.messages ?? []) as Message[];
const toolsOf = (request: RecordedRequest | undefined) =>
  ((request?.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
/** The first user message's text: which task a child request belongs to. */
const promptOf = (request: RecordedRequest) =>
  String(messagesOf(request).find((message) => message.role === "user")?.content ?? "");
const task = (id: string, description: string, taskPrompt: string, agent?: string) => ({
  id,
  name: "task",
  args: { description, prompt: taskPrompt, ...(agent === undefined ? {} : { agent }) },
});

/** A turn that answers whichever child asks, after `gate`, with `answer(prompt)`. */
function childTurn(gate: Promise<unknown>, answer: (prompt: string) => string): ScriptedTurn {
  return {
    respond: (request) => ({
      stream: [
        { until: gate },
        { text: answer(promptOf(request)) },
        { finish: "stop" },
        { usage: { prompt: 100_000, completion: 1_000 } },
        { done: true },
      ],
    }),
  };
}

describe("task", () => {
  test("an explore child reads with reading tools only, in a fresh history; its answer is the result", async () => {
    const { dsh, sessionId } = await start((cwd) =>
      writeFileSync(join(cwd, "a.ts"), "// TODO: x\n"),
    );
    await using _ = dsh;
    const before = rig.model().requests.length;
    rig
      .model()
      .script(
        toolTurn([task("t1", "find TODOs", "List the TODO comments.")]),
        toolTurn([{ id: "g1", name: "grep", args: { pattern: "TODO" } }]),
        textTurn("a.ts:1 has one TODO"),
        textTurn("There is one TODO."),
      );
    const answer = await prompt(dsh, sessionId, "look for TODOs");
    expect(answer.stopReason).toBe("end_turn");
    const [parent, child, childAgain, parentAgain] = rig.model().requests.slice(before);
    expect(toolsOf(parent)).toContain("task");
    expect(toolsOf(child)).toEqual(["read_file", "glob", "grep", "bash", "web_fetch"]);
    expect(messagesOf(child).map((message) => message.role)).toEqual(["system", "user"]);
    expect(promptOf(child as RecordedRequest)).toBe("List the TODO comments.");
    expect(String(messagesOf(child)[0]?.content)).toStartWith("You are a subagent of dsh");
    expect(messagesOf(childAgain).map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
    ]);
    const result = messagesOf(parentAgain).find((message) => message.role === "tool");
    expect(result?.content).toBe("a.ts:1 has one TODO");
    // The card: a think card whose content grew with the child's steps and ends with the answer.
    const updates = dsh.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
    expect(updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        kind: "think",
        title: "explore: find TODOs",
      }),
    );
    const last: acp.SessionUpdate | undefined = updates.findLast(
      (update) => update.sessionUpdate === "tool_call_update" && update.toolCallId === "t1",
    );
    expect(last).toMatchObject({
      status: "completed",
      content: [
        {
          type: "content",
          content: {
            type: "text",
            text: "Grep /TODO/ (1 match in 1 file)\n\na.ts:1 has one TODO",
          },
        },
      ],
    });
    expect(dsh.problems).toEqual([]);

    // session/load replays the card with its steps and its answer.
    await dsh.agent.request(m.close, { sessionId });
    const count = dsh.updates.length;
    await dsh.agent.request(m.load, { sessionId, cwd: dsh.cwd, mcpServers: [] });
    const replayed = dsh.updates.slice(count).map((n) => n.update);
    expect(replayed).toContainEqual(
      expect.objectContaining({ sessionUpdate: "tool_call", toolCallId: "t1", kind: "think" }),
    );
    expect(replayed).toContainEqual(
      expect.objectContaining({
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        content: [
          {
            type: "content",
            content: { type: "text", text: "Grep /TODO/ (1 match in 1 file)\n" },
          },
        ],
      }),
    );
    const replayedLast: acp.SessionUpdate | undefined = replayed.findLast(
      (update) => update.sessionUpdate === "tool_call_update",
    );
    expect(last).toEqual(replayedLast);
  });

  test("two tasks of one response run at once, and the children's cost is the session's", async () => {
    const { dsh, sessionId } = await start();
    await using _ = dsh;
    const before = rig.model().requests.length;
    // Each child is answered only once both have asked: run one after the other, they would hang.
    const both = Promise.all([rig.model().received(before + 1), rig.model().received(before + 2)]);
    rig.model().script(
      toolTurn([task("p1", "one", "first job"), task("p2", "two", "second job")]),
      childTurn(both, (text) => `answer to ${text}`),
      childTurn(both, (text) => `answer to ${text}`),
      textTurn("both done"),
    );
    const answer = await prompt(dsh, sessionId, "do two things");
    expect(answer.stopReason).toBe("end_turn");
    const results = messagesOf(rig.model().requests[before + 3])
      .filter((message) => message.role === "tool")
      .map((message) => message.content);
    expect(results).toEqual(["answer to first job", "answer to second job"]);
    const usage = readLog(dsh.home, sessionId).filter((event) => event.type === "usage");
    const childCost = usage
      .filter((event) => event.task !== undefined)
      .reduce((sum, event) => sum + Number(event.costUsd), 0);
    const total = usage.reduce((sum, event) => sum + Number(event.costUsd), 0);
    expect(
      usage
        .filter((event) => event.task !== undefined)
        .map((e) => e.task)
        .sort(),
    ).toEqual(["p1", "p2"]);
    expect(childCost).toBeGreaterThan(0);
    const costs = dsh.updates
      .filter((n) => n.sessionId === sessionId)
      .flatMap((n) =>
        n.update.sessionUpdate === "usage_update" ? [n.update.cost?.amount ?? 0] : [],
      );
    expect(costs.at(-1)).toBeCloseTo(total, 12);
    // The parent's own context meter stays the parent's (its last request's tokens).
    expect(
      dsh.updates.findLast((n) => n.update.sessionUpdate === "usage_update")?.update,
    ).toMatchObject({
      used: 15,
    });
  });

  test("a cancel stops every child at once; no request follows", async () => {
    const { dsh, sessionId, before, script } = await session();
    await using _ = dsh;
    script(
      toolTurn([task("c1", "one", "first"), task("c2", "two", "second")]),
      { respond: { hang: true } },
      { respond: { hang: true } },
    );
    const answer = prompt(dsh, sessionId, "two long ones");
    await rig.model().received(before + 2);
    await dsh.agent.notify(m.cancel, { sessionId });
    expect((await answer).stopReason).toBe("cancelled");
    await Promise.all([rig.model().aborted(before + 1), rig.model().aborted(before + 2)]);
    expect(rig.model().requests.length).toBe(before + 3);
    expect(rig.model().pending()).toBe(0);
  });

  test("a custom agent gets exactly the tools its file lists, and its body as its prompt", async () => {
    const { dsh, sessionId } = await start((cwd) => {
      mkdirSync(join(cwd, ".dsh", "agents"), { recursive: true });
      writeFileSync(
        join(cwd, ".dsh", "agents", "reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews a change\ntools: [read_file, grep, task]\n---\nYou review code.\n",
      );
      writeFileSync(
        join(cwd, ".dsh", "agents", "broken.md"),
        "---\ndescription: [unclosed\n---\nx\n",
      );
    });
    await using _ = dsh;
    const before = rig.model().requests.length;
    rig
      .model()
      .script(
        toolTurn([task("r1", "review", "Review a.ts", "reviewer")]),
        textTurn("looks fine"),
        textTurn("reviewed"),
      );
    await prompt(dsh, sessionId, "review it");
    const [parent, child] = rig.model().requests.slice(before);
    const taskTool = (
      (parent?.body.tools ?? []) as { function: { name: string; description: string } }[]
    ).find((tool) => tool.function.name === "task");
    expect(taskTool?.function.description).toContain("- reviewer: Reviews a change");
    expect(toolsOf(child)).toEqual(["read_file", "grep"]);
    expect(String(messagesOf(child)[0]?.content)).toStartWith(
      "You review code.\n\nWorking directory: ",
    );
    const warnings = dsh.updates.flatMap((n) =>
      n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text"
        ? [n.update.content.text]
        : [],
    );
    expect(warnings.join("")).toContain("a custom agent was left out");
  });

  sandboxSerialTest(
    "explore's commands run in the read-only sandbox even under danger-full-access",
    async () => {
      const { dsh, sessionId } = await rig.start({ env: { DSH_PERMISSION: "danger-full-access" } });
      await using _ = dsh;
      const before = rig.model().requests.length;
      rig
        .model()
        .script(
          toolTurn([task("e1", "try a write", "Create a file.")]),
          toolTurn([
            { id: "w1", name: "bash", args: { command: "touch made-here 2>&1; echo $?" } },
          ]),
          textTurn("could not"),
          textTurn("ok"),
        );
      await prompt(dsh, sessionId, "try");
      const child = rig.model().requests[before + 2];
      const result = String(messagesOf(child).find((m) => m.role === "tool")?.content);
      expect(result).toStartWith("[exit code 0; sandbox: read-only; ");
      expect(result).toContain("Read-only file system");
      expect(existsSync(join(dsh.cwd, "made-here"))).toBe(false);
    },
  );

  sandboxSerialTest(
    "a general child's approvals reach the user, titled with the task, on its card",
    async () => {
      const asked: acp.RequestPermissionRequest[] = [];
      const { dsh, sessionId } = await rig.start({
        onPermission: (params) => {
          asked.push(params);
          return { outcome: { outcome: "selected", optionId: "reject" } };
        },
      });
      await using _ = dsh;
      const escalate = { command: "touch /outside", escalate: true, justification: "needs it" };
      rig
        .model()
        .script(
          toolTurn([task("g1", "change it", "Change things.", "general")]),
          toolTurn([{ id: "x1", name: "bash", args: escalate }]),
          textTurn("refused"),
          textTurn("ok"),
        );
      await prompt(dsh, sessionId, "change");
      // On the task's card, which keeps its title; the question names the task.
      expect(
        asked.map(({ toolCall }) => [toolCall.toolCallId, toolCall.title, toolCall.content?.[0]]),
      ).toEqual([
        [
          "g1",
          "general: change it",
          {
            type: "content",
            content: {
              type: "text",
              text: "change it: Run `touch /outside` outside the sandbox: the model's reason: needs it",
            },
          },
        ],
      ]);
    },
  );

  test("max_subagents = 1: the second task starts once the first has answered", async () => {
    const { dsh, sessionId } = await rig.start({ configToml: "max_subagents = 1\n" });
    await using _ = dsh;
    const before = rig.model().requests.length;
    rig
      .model()
      .script(
        toolTurn([task("q1", "one", "first job"), task("q2", "two", "second job")]),
        toolTurn([{ id: "l1", name: "glob", args: { pattern: "*" } }]),
        textTurn("first answer"),
        textTurn("second answer"),
        textTurn("both"),
      );
    await prompt(dsh, sessionId, "two in a row");
    const prompts = rig
      .model()
      .requests.slice(before + 1, before + 4)
      .map((request) => promptOf(request));
    expect(prompts).toEqual(["first job", "first job", "second job"]);
  });

  test("a crash mid-task loads consistently: the card with its steps, failed; the session goes on", async () => {
    const { dsh, sessionId, before, script } = await session();
    await using _ = dsh;
    script(
      toolTurn([task("k1", "long", "Look around.")]),
      toolTurn([{ id: "l2", name: "glob", args: { pattern: "*" } }]),
      { respond: { hang: true } },
    );
    void prompt(dsh, sessionId, "go").catch(() => undefined);
    await rig.model().received(before + 2);
    dsh.proc.kill("SIGKILL");
    await dsh.proc.exited;
    await using again = await spawnAcp({ baseUrl: rig.model().url, env: { DSH_HOME: dsh.home } });
    await again.agent.request(acp.methods.agent.initialize, zedInitialize(false));
    await again.agent.request(m.load, { sessionId, cwd: dsh.cwd, mcpServers: [] });
    const card = again.updates
      .map((n) => n.update)
      .filter(
        (update) => update.sessionUpdate === "tool_call_update" && update.toolCallId === "k1",
      );
    expect(card.at(-1)).toMatchObject({
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "Glob * (0 files)\n" } }],
    });
    rig.model().script(textTurn("still here"));
    expect((await prompt(again, sessionId, "and now?")).stopReason).toBe("end_turn");
    const history = messagesOf(rig.model().requests.at(-1));
    expect(history.find((message) => message.role === "tool")?.content).toContain("cancelled");
  });
});

describe("task in dsh exec --json", () => {
  test("the child's steps are tool_output events with the task's id", async () => {
    await using cli = await startCliRig("dsh-task-exec");
    const project = cli.project("exec");
    writeFileSync(join(project.cwd, "a.ts"), "// TODO\n");
    cli.server.script(
      toolTurn([task("t9", "look", "Find TODO.")]),
      toolTurn([{ id: "g9", name: "grep", args: { pattern: "TODO" } }]),
      textTurn("one"),
      textTurn("done"),
    );
    const run = await cli.run(["exec", "--json", "go"], project);
    expect(run.code).toBe(0);
    const events = run.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toContainEqual({
      type: "tool_output",
      id: "t9",
      text: "Grep /TODO/ (1 match in 1 file)\n",
    });
    expect(events).toContainEqual(
      expect.objectContaining({ type: "tool_result", id: "t9", output: "one" }),
    );
  });
});
