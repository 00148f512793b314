import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { zedInitialize } from "../support/acp-harness.ts";
import { spawnAcp } from "../support/acp-process.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { sandboxSerialTest as sandboxed } from "../support/sandbox-gate.ts";

const m = acp.methods.agent.session;

/** Every stdout line is one JSON-RPC 2.0 message. */
function expectPureStdout(lines: readonly string[]): void {
  const bad = lines.filter((line) => {
    try {
      const message: unknown = JSON.parse(line);
      return !(
        typeof message === "object" &&
        message !== null &&
        "jsonrpc" in message &&
        message.jsonrpc === "2.0"
      );
    } catch {
      return true;
    }
  });
  expect(bad).toEqual([]);
}

describe("dsh acp, the compiled binary over real pipes", () => {
  sandboxed("serves a command and a text answer, then exits 0 soon after stdin EOF", async () => {
    await using model = await startModelServer();
    await using dsh = await spawnAcp({ baseUrl: model.url });
    const init = await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(true));
    expect(init.protocolVersion).toBe(1);
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    model.script(
      toolTurn([{ id: "b1", name: "bash", args: { command: "echo hello" } }]),
      textTurn("It printed hello."),
    );
    const result = await dsh.agent.request(m.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "say hello" }],
    });
    expect(result).toEqual({ stopReason: "end_turn" });
    const updates = dsh.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
    const exit = updates.findLast((u) => u.sessionUpdate === "tool_call_update");
    expect(exit).toMatchObject({
      status: "completed",
      _meta: { terminal_exit: { terminal_id: "b1", exit_code: 0 } },
    });
    expect(updates.at(-2)).toEqual({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "It printed hello." },
    });

    const { code, ms } = await dsh.closeStdin();
    expect(code).toBe(0);
    expect(ms).toBeLessThan(2000);
    expectPureStdout(dsh.lines);
    expect(dsh.problems).toEqual([]);
    expect(await dsh.stderr()).not.toContain("test-key");
  });

  test("stdin EOF mid-turn: the turn is cancelled and logged, and dsh exits 0", async () => {
    await using model = await startModelServer();
    await using dsh = await spawnAcp({ baseUrl: model.url });
    await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(false));
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    const never = Promise.withResolvers<void>();
    model.script({
      respond: { stream: [{ text: "thinking about it" }, { until: never.promise }] },
    });
    const prompt = dsh.agent.request(m.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "long job" }],
    });
    prompt.catch(() => undefined);
    await model.received(0);
    const { code } = await dsh.closeStdin();
    expect(code).toBe(0);
    await model.aborted(0);
    const log = readFileSync(join(dsh.home, "sessions", `${sessionId}.jsonl`), "utf8")
      .trim()
      .split("\n");
    expect(JSON.parse(log.at(-1) ?? "{}")).toMatchObject({ type: "turn_end", reason: "cancelled" });
    expectPureStdout(dsh.lines);
    expect(dsh.problems).toEqual([]);
  });

  test("SIGTERM mid-turn answers the prompt cancelled and exits 0", async () => {
    await using model = await startModelServer();
    await using dsh = await spawnAcp({ baseUrl: model.url });
    await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(true));
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    const never = Promise.withResolvers<void>();
    model.script({ respond: { stream: [{ until: never.promise }] } });
    const prompt = dsh.agent.request(m.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "long job" }],
    });
    await model.received(0);
    dsh.proc.kill("SIGTERM");
    expect(await prompt).toEqual({ stopReason: "cancelled" });
    expect(await dsh.proc.exited).toBe(0);
    expectPureStdout(dsh.lines);
    expect(dsh.problems).toEqual([]);
  });

  test("garbage on stdin gets JSON-RPC errors on stdout, never anything else", async () => {
    await using model = await startModelServer();
    await using dsh = await spawnAcp({ baseUrl: model.url });
    dsh.proc.stdin.write("this is not json\n[1,2]\n42\n");
    await dsh.proc.stdin.flush();
    await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(true));
    expect((await dsh.closeStdin()).code).toBe(0);
    expectPureStdout(dsh.lines);
    expect(dsh.lines.filter((l) => l.includes('"error"'))).toHaveLength(3);
  });
});

describe("dsh acp against the real DeepSeek API", () => {
  const key = process.env.DEEPSEEK_API_KEY;
  if (key === undefined || key === "") {
    test("is skipped without DEEPSEEK_API_KEY", () => {
      console.info(
        "skipping the DeepSeek e2e: set DEEPSEEK_API_KEY to run it against api.deepseek.com",
      );
    });
    return;
  }
  test("answers a prompt end to end", async () => {
    await using dsh = await spawnAcp({ baseUrl: "https://api.deepseek.com", apiKey: key });
    await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(true));
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    const result = await dsh.agent.request(m.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "Reply with exactly the word: pong. Do not use any tool." }],
    });
    expect(result.stopReason).toBe("end_turn");
    const text = dsh.updates
      .map((n) => n.update)
      .flatMap((u) =>
        u.sessionUpdate === "agent_message_chunk" && u.content.type === "text"
          ? [u.content.text]
          : [],
      )
      .join("");
    expect(text.toLowerCase()).toContain("pong");
    expect((await dsh.closeStdin()).code).toBe(0);
    expect(dsh.problems).toEqual([]);
  });
});
