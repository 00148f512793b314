/**
 * What a Zed user reaches for daily, over the compiled binary and real pipes: slash commands,
 * the plan panel, deleting sessions, embedded context, pasted images, and a quiet stderr.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { availableCommandsUpdate } from "../../src/acp/commands.ts";
import { INIT_PROMPT } from "../../src/commands/turn-commands.ts";
import { imageOmitted } from "../../src/llm/request.ts";
import { rejection } from "../support/acp-fixture.ts";
import { zedInitialize } from "../support/acp-harness.ts";
import { type AcpProcess, spawnAcp } from "../support/acp-process.ts";
import { sandboxStatus, sandboxTest } from "../exec/sandbox-support.ts";
import { ensureBinary } from "../support/binary.ts";
import { type ModelServer, startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { needsSupervisor } from "../support/supervisor-gate.ts";

const m = acp.methods.agent.session;

beforeAll(async () => {
  await ensureBinary();
});

/** A 1×1 PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

async function started(model: ModelServer, env?: Record<string, string>): Promise<AcpProcess> {
  const dsh = await spawnAcp({ baseUrl: model.url, ...(env === undefined ? {} : { env }) });
  await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(true));
  return dsh;
}

function updatesOf(dsh: AcpProcess, sessionId: string): acp.SessionUpdate[] {
  return dsh.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
}

const isCommands = (u: acp.SessionUpdate) => u.sessionUpdate === "available_commands_update";

/** The text of the user message of request `n`, whatever its shape. */
function userMessage(model: ModelServer, n: number): unknown {
  const messages = model.requests[n]?.body.messages as { role: string; content: unknown }[];
  return messages.findLast((message) => message.role === "user")?.content;
}

function text(prompt: string): acp.ContentBlock[] {
  return [{ type: "text", text: prompt }];
}

describe("slash commands", () => {
  test("the command list follows session/new, session/load and session/resume", async () => {
    await using model = await startModelServer();
    await using dsh = await started(model);
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    expect(await dsh.waitForUpdate(sessionId, isCommands)).toEqual(availableCommandsUpdate());
    expect(availableCommandsUpdate()).toMatchObject({
      availableCommands: [
        { name: "compact", input: { hint: expect.any(String) } },
        { name: "init" },
        { name: "model", input: { hint: "model id" } },
        { name: "effort", input: { hint: "off | low | high | max" } },
        { name: "permission", input: { hint: expect.stringContaining("workspace-write") } },
        { name: "status" },
        { name: "skills" },
        { name: "commands" },
        { name: "undo" },
        { name: "rewind", input: { hint: expect.any(String) } },
        { name: "diff", input: { hint: expect.any(String) } },
        { name: "fork", input: { hint: expect.any(String) } },
        { name: "add-dir", input: { hint: "directory" } },
      ],
    });
    await dsh.agent.request(m.close, { sessionId });
    await dsh.agent.request(m.load, { sessionId, cwd: dsh.cwd, mcpServers: [] });
    await dsh.agent.request(m.close, { sessionId });
    await dsh.agent.request(m.resume, { sessionId, cwd: dsh.cwd });
    // Load and resume send it before their response: the client already knows the id.
    expect(updatesOf(dsh, sessionId).filter(isCommands)).toHaveLength(3);
    expect((await dsh.closeStdin()).code).toBe(0);
    expect(dsh.problems).toEqual([]);
  });

  test("/status answers from the session without a model request", async () => {
    await using model = await startModelServer();
    await using dsh = await started(model);
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    model.script(textTurn("hi"));
    await dsh.agent.request(m.prompt, { sessionId, prompt: text("hello") });
    const answer = await dsh.agent.request(m.prompt, { sessionId, prompt: text("/status") });
    expect(answer).toEqual({ stopReason: "end_turn" });
    expect(model.requests).toHaveLength(1);
    expect(updatesOf(dsh, sessionId).at(-1)).toEqual({
      sessionUpdate: "agent_message_chunk",
      content: {
        type: "text",
        text: [
          "- model: deepseek-flash (DeepSeek Flash)",
          "- effort: high",
          "- permission: workspace-write",
          `- sandbox: ${sandboxStatus.ok ? sandboxStatus.backend : `${sandboxStatus.backend}, not working: ${sandboxStatus.reason}`}`,
          "- context: 15 of 1,048,576 tokens (0.0%)",
          "- cost: $0.0000",
          "- MCP servers: none",
          "- background commands: none",
          "- network: through dsh's proxy; no host is allowed yet (commands ask about each)",
        ].join("\n"),
      },
    });
    expect(dsh.problems).toEqual([]);
  });

  test("/model switches the next request's model and the client sees the option change", async () => {
    await using model = await startModelServer();
    await using dsh = await started(model);
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    const switched = await dsh.agent.request(m.prompt, {
      sessionId,
      prompt: text("/model deepseek-v4-pro"),
    });
    expect(switched).toEqual({ stopReason: "end_turn" });
    const option = updatesOf(dsh, sessionId).find(
      (u) => u.sessionUpdate === "config_option_update",
    );
    expect(
      option?.sessionUpdate === "config_option_update" &&
        option.configOptions.find((o) => o.id === "model")?.currentValue,
    ).toBe("deepseek-v4-pro");
    model.script(textTurn("ok"));
    await dsh.agent.request(m.prompt, { sessionId, prompt: text("go") });
    // An unknown /word is an ordinary prompt.
    model.script(textTurn("ok"));
    await dsh.agent.request(m.prompt, { sessionId, prompt: text("/unknown thing") });
    expect(model.requests.map((r) => r.body.model)).toEqual(["deepseek-v4-pro", "deepseek-v4-pro"]);
    expect(userMessage(model, 1)).toBe("/unknown thing");
    const bad = await rejection(
      dsh.agent.request(m.prompt, { sessionId, prompt: text("/effort extreme") }),
    );
    expect(bad.message).toContain("unknown effort extreme (off, low, high, max)");
    expect(dsh.problems).toEqual([]);
  });
});

describe("turn commands", () => {
  test("/init runs a turn that writes AGENTS.md; /compact compacts with its focus", async () => {
    await using model = await startModelServer();
    await using dsh = await started(model);
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    const agents = "# Agents\n\nRun `bun test`.\n";
    model.script(
      toolTurn([{ id: "w1", name: "write_file", args: { path: "AGENTS.md", content: agents } }]),
      textTurn("Wrote AGENTS.md."),
    );
    const init = await dsh.agent.request(m.prompt, { sessionId, prompt: text("/init") });
    expect(init).toEqual({ stopReason: "end_turn" });
    expect(readFileSync(join(dsh.cwd, "AGENTS.md"), "utf8")).toBe(agents);
    expect(userMessage(model, 0)).toBe(INIT_PROMPT);

    // /compact runs the session's compaction as the prompt's turn, weighted to its focus.
    model.script(textTurn("SUMMARY: AGENTS.md written."), textTurn("ok"));
    const compact = await dsh.agent.request(m.prompt, {
      sessionId,
      prompt: text("/compact the AGENTS.md work"),
    });
    expect(compact).toEqual({ stopReason: "end_turn" });
    expect(JSON.stringify(model.requests[2]?.body.messages)).toContain("the AGENTS.md work");
    await dsh.agent.request(m.prompt, { sessionId, prompt: text("next") });
    expect(JSON.stringify(model.requests[3]?.body.messages)).toContain(
      "SUMMARY: AGENTS.md written.",
    );
    expect(JSON.stringify(model.requests[3]?.body.messages)).not.toContain("Run `bun test`");
    expect(dsh.problems).toEqual([]);
  });
});

describe("plans", () => {
  test("todo_write twice gives two plan updates and no tool card; a reload replays the latest", async () => {
    await using model = await startModelServer();
    await using dsh = await started(model);
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    const first = [
      { content: "Read the code", status: "in_progress" },
      { content: "Fix the bug", status: "pending", priority: "high" },
    ];
    const second = [
      { content: "Read the code", status: "completed" },
      { content: "Fix the bug", status: "in_progress", priority: "high" },
    ];
    model.script(
      toolTurn([{ id: "p1", name: "todo_write", args: { todos: first } }]),
      toolTurn([{ id: "p2", name: "todo_write", args: { todos: second } }]),
      textTurn("Planned."),
    );
    await dsh.agent.request(m.prompt, { sessionId, prompt: text("fix it") });
    const latest: acp.PlanEntry[] = [
      { content: "Read the code", status: "completed", priority: "medium" },
      { content: "Fix the bug", status: "in_progress", priority: "high" },
    ];
    const live = updatesOf(dsh, sessionId);
    expect(live.filter((u) => u.sessionUpdate === "plan")).toEqual([
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Read the code", status: "in_progress", priority: "medium" },
          { content: "Fix the bug", status: "pending", priority: "high" },
        ],
      },
      { sessionUpdate: "plan", entries: latest },
    ]);
    expect(live.filter((u) => u.sessionUpdate.startsWith("tool_call"))).toEqual([]);
    expect((await dsh.closeStdin()).code).toBe(0);

    await using again = await started(model, { DSH_HOME: dsh.home });
    await again.agent.request(m.load, { sessionId, cwd: dsh.cwd, mcpServers: [] });
    const replayed = updatesOf(again, sessionId);
    expect(replayed.filter((u) => u.sessionUpdate === "plan")).toEqual([
      { sessionUpdate: "plan", entries: latest },
    ]);
    expect(replayed.filter((u) => u.sessionUpdate.startsWith("tool_call"))).toEqual([]);
    expect([...dsh.problems, ...again.problems]).toEqual([]);
  });
});

describe("session/delete", () => {
  test("is advertised, refuses a session running a prompt, and a deletion survives a restart", async () => {
    await using model = await startModelServer();
    await using dsh = await started(model);
    const init = await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(true));
    expect(init.agentCapabilities?.sessionCapabilities?.delete).toEqual({});
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    const release = Promise.withResolvers<void>();
    model.script({
      respond: {
        stream: [
          { text: "working" },
          { until: release.promise },
          { finish: "stop" },
          { done: true },
        ],
      },
    });
    const running = dsh.agent.request(m.prompt, { sessionId, prompt: text("long job") });
    await model.received(0);
    const refused = await rejection(dsh.agent.request(m.delete, { sessionId }));
    expect(refused.code).toBe(-32600);
    // A command is a prompt too: its answer never lands inside the running turn.
    const status = await rejection(
      dsh.agent.request(m.prompt, { sessionId, prompt: text("/status") }),
    );
    expect(status.code).toBe(-32600);
    release.resolve();
    expect(await running).toEqual({ stopReason: "end_turn" });
    const log = join(dsh.home, "sessions", `${sessionId}.jsonl`);
    expect(existsSync(log)).toBe(true);
    expect(await dsh.agent.request(m.delete, { sessionId })).toEqual({});
    expect(existsSync(log)).toBe(false);
    // Gone already is deleted: again, or an id no session ever had, succeeds.
    expect(await dsh.agent.request(m.delete, { sessionId })).toEqual({});
    expect(await dsh.agent.request(m.delete, { sessionId: "no-such-session" })).toEqual({});
    // An id that could name a path outside the sessions directory is still refused.
    for (const hostile of ["../escape", "a/b", ".hidden"]) {
      const refusedPath = await rejection(dsh.agent.request(m.delete, { sessionId: hostile }));
      expect(refusedPath.code).toBe(-32602);
    }
    expect(
      (await rejection(dsh.agent.request(m.prompt, { sessionId, prompt: text("hi") }))).code,
    ).toBe(-32002);
    expect((await dsh.closeStdin()).code).toBe(0);

    await using again = await started(model, { DSH_HOME: dsh.home });
    expect((await again.agent.request(m.list, {})).sessions).toEqual([]);
    const load = dsh.cwd;
    expect(
      (await rejection(again.agent.request(m.load, { sessionId, cwd: load, mcpServers: [] }))).code,
    ).toBe(-32002);
    expect((await rejection(again.agent.request(m.resume, { sessionId, cwd: load }))).code).toBe(
      -32002,
    );
    expect([...dsh.problems, ...again.problems]).toEqual([]);
  });
});

describe("prompt content", () => {
  test("an embedded resource's text and uri reach the model", async () => {
    await using model = await startModelServer();
    await using dsh = await started(model);
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    model.script(textTurn("seen"));
    const uri = `file://${dsh.cwd}/notes.md`;
    await dsh.agent.request(m.prompt, {
      sessionId,
      prompt: [
        { type: "text", text: "summarise" },
        {
          type: "resource",
          resource: { uri, text: "# Notes\nship friday", mimeType: "text/markdown" },
        },
      ],
    });
    expect(userMessage(model, 0)).toBe(
      `summarise\n\n<resource uri="${uri}">\n# Notes\nship friday\n</resource>`,
    );
    expect(dsh.problems).toEqual([]);
  });

  test("a link to a project file is read as read_file would; a link outside the project is named", async () => {
    await using model = await startModelServer();
    await using dsh = await started(model);
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    writeFileSync(join(dsh.cwd, "a.ts"), "export const a = 1;\n");
    const outside = join(dsh.home, "..", "outside.txt");
    writeFileSync(outside, "not for the model\n");
    model.script(textTurn("seen"));
    const inside = `file://${dsh.cwd}/a.ts`;
    await dsh.agent.request(m.prompt, {
      sessionId,
      prompt: [
        { type: "text", text: "compare" },
        { type: "resource_link", uri: inside, name: "a.ts" },
        { type: "resource_link", uri: `file://${outside}`, name: "outside.txt" },
        { type: "resource_link", uri: `file://${dsh.cwd}/missing.ts`, name: "missing.ts" },
      ],
    });
    expect(userMessage(model, 0)).toBe(
      [
        "compare",
        `<resource uri="${inside}">\nexport const a = 1;\n\n</resource>`,
        `[outside.txt](file://${outside})`,
        `[missing.ts](file://${dsh.cwd}/missing.ts)`,
      ].join("\n\n"),
    );
    expect(dsh.problems).toEqual([]);
  });

  test("an image reaches a vision model as a data URL; a text-only model gets a note in its place and the user is told once", async () => {
    await using model = await startModelServer();
    await using dsh = await started(model);
    const init = await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(true));
    expect(init.agentCapabilities?.promptCapabilities).toEqual({
      image: true,
      audio: false,
      embeddedContext: true,
    });
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    const prompt: acp.ContentBlock[] = [
      { type: "text", text: "what is this?" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ];
    model.script(textTurn("a dot"));
    await dsh.agent.request(m.prompt, { sessionId, prompt });
    expect(userMessage(model, 0)).toEqual([
      { type: "text", text: "what is this?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);

    await dsh.agent.request(m.setConfigOption, {
      sessionId,
      configId: "model",
      value: "deepseek-v4-pro",
    });
    // A text-only model takes the prompt too: the image becomes a note naming a model that
    // sees it, and the user is told once, in the answer.
    model.script(textTurn("I cannot see it"), textTurn("still blind"));
    const blind = await dsh.agent.request(m.prompt, { sessionId, prompt });
    expect(blind.stopReason).toBe("end_turn");
    const note = imageOmitted("deepseek-flash");
    expect(note).toContain("switch to deepseek-flash");
    expect(userMessage(model, 1)).toEqual([
      { type: "text", text: "what is this?" },
      { type: "text", text: note },
    ]);
    const told = () =>
      updatesOf(dsh, sessionId).filter(
        (u) =>
          u.sessionUpdate === "agent_message_chunk" &&
          u.content.type === "text" &&
          u.content.text.includes("cannot see images"),
      ).length;
    expect(told()).toBe(1);
    await dsh.agent.request(m.prompt, { sessionId, prompt });
    expect(told()).toBe(1);
    // The earlier images become notes it can read.
    const textOnly = model.requests[2]?.body.messages as { role: string; content: unknown }[];
    expect(textOnly.find((message) => message.role === "user")?.content).toEqual([
      { type: "text", text: "what is this?" },
      { type: "text", text: note },
    ]);
    expect((await dsh.closeStdin()).code).toBe(0);

    // The log keeps the image: a reload sends the same request, and shows a placeholder.
    await using again = await started(model, { DSH_HOME: dsh.home });
    await again.agent.request(m.load, { sessionId, cwd: dsh.cwd, mcpServers: [] });
    expect(updatesOf(again, sessionId).slice(0, 2)).toEqual([
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "what is this?" } },
      { sessionUpdate: "user_message_chunk", content: { type: "text", text: "[image]" } },
    ]);
    await again.agent.request(m.setConfigOption, {
      sessionId,
      configId: "model",
      value: "deepseek-flash",
    });
    model.script(textTurn("still a dot"));
    await again.agent.request(m.prompt, { sessionId, prompt: text("and now?") });
    const history = model.requests[3]?.body.messages as { role: string; content: unknown }[];
    expect(history.find((message) => message.role === "user")?.content).toEqual(
      userMessage(model, 0),
    );
    expect([...dsh.problems, ...again.problems]).toEqual([]);
  });
});

describe("stderr", () => {
  // A command runs in this session: it needs the sandbox (sandboxTest skips, saying why, without
  // one), and the supervisor chain, without which dsh warns that commands can outlive it.
  needsSupervisor(sandboxTest)(
    "a clean session at the default level writes nothing to stderr",
    async () => {
      await using model = await startModelServer();
      await using dsh = await started(model);
      const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
      model.script(
        toolTurn([{ id: "b1", name: "bash", args: { command: "echo hi" } }]),
        textTurn("done"),
      );
      await dsh.agent.request(m.prompt, { sessionId, prompt: text("say hi") });
      await dsh.agent.request(m.prompt, { sessionId, prompt: text("/status") });
      expect((await dsh.closeStdin()).code).toBe(0);
      expect(await dsh.stderr()).toBe("");
    },
  );

  test("DSH_LOG_LEVEL=info, or DSH_LOG=debug, brings back more lines; a bad level is named", async () => {
    await using model = await startModelServer();
    await using info = await started(model, { DSH_LOG_LEVEL: "info" });
    expect((await info.closeStdin()).code).toBe(0);
    expect(await info.stderr()).toContain("INFO client connected");
    await using named = await started(model, { DSH_LOG: "debug" });
    expect((await named.closeStdin()).code).toBe(0);
    expect(await named.stderr()).toContain("INFO client connected");
    expect(existsSync(join(named.cwd, "debug"))).toBe(false);
    await using bad = await started(model, { DSH_LOG_LEVEL: "loud" });
    expect((await bad.closeStdin()).code).toBe(0);
    expect(await bad.stderr()).toContain(
      'WARN DSH_LOG_LEVEL="loud" is not a level (debug, info, warn, error); using warn',
    );
  });
});

describe("tools", () => {
  test("an unknown tool's error names only the tools offered to this client", async () => {
    await using model = await startModelServer();
    await using dsh = await spawnAcp({ baseUrl: model.url });
    // No form elicitation: the question tool is not offered, so it must not be named either.
    await dsh.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    model.script(toolTurn([{ id: "x1", name: "nope", args: {} }]), textTurn("sorry"));
    await dsh.agent.request(m.prompt, { sessionId, prompt: text("go") });
    const messages = model.requests[1]?.body.messages as { role: string; content: unknown }[];
    expect(messages.find((message) => message.role === "tool")?.content).toBe(
      'unknown tool "nope"; known tools: read_file, write_file, edit_file, glob, grep, bash, todo_write, web_fetch, bash_output, bash_kill, task',
    );
    const offered = ((model.requests[0]?.body.tools ?? []) as { function: { name: string } }[]).map(
      (tool) => tool.function.name,
    );
    expect(offered).not.toContain("ask_user_question");
    expect(dsh.problems).toEqual([]);
  });
});
