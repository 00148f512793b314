/**
 * `session/load` of a long log through the compiled binary: the client gets exactly the
 * updates the replay mapping gives for that log, in log order, each one valid ACP and written
 * before the load's response, however the output is batched on the way.
 */
import { expect, test } from "bun:test";
import { clientOptionsOf } from "../../src/acp/capabilities.ts";
import { availableCommandsUpdate } from "../../src/acp/commands.ts";
import { HIGH_WATER_CHARS } from "../../src/acp/line-writer.ts";
import { replayUpdates } from "../../src/acp/replay.ts";
import { silentLogger } from "../../src/log.ts";
import type { RenderIntent } from "../../src/render/intent.ts";
import { createSessionStore } from "../../src/session/store.ts";
import { createProject } from "../hostile/project.ts";
import { spawnRawAcp } from "../hostile/raw-acp.ts";
import { readSessionLog } from "../support/read-session.ts";

const TURNS = 300;
/** A file body large enough that the replay's output passes the line writer's high-water mark. */
const BODY = "export const value = 1;\n".repeat(150);

/** A session of `TURNS` turns that run commands, edit files, plan and answer; the last is cut. */
async function writeLongSession(home: string, cwd: string): Promise<string> {
  const store = createSessionStore({ home, logger: silentLogger });
  await using log = await store.create({ cwd });
  for (let i = 0; i < TURNS; i++) {
    const turnId = `t${i}`;
    log.append({ type: "turn_start", turnId });
    const content =
      i % 7 === 0
        ? [
            { type: "text" as const, text: `look at ${i}` },
            { type: "resource_link" as const, uri: `file://${cwd}/f${i}.ts`, name: `f${i}.ts` },
            { type: "image" as const, mimeType: "image/png", data: "iVBORw0KGgo=" },
          ]
        : [{ type: "text" as const, text: `change ${i}\u2028with a line separator` }];
    log.append({ type: "user_message", turnId, content });
    log.append({ type: "prompt_submit", turnId });
    log.append({ type: "reasoning", turnId, step: 1, text: `thinking about ${i} ` });
    const intent: RenderIntent =
      i % 3 === 0
        ? { type: "terminal", title: `Run \`ls ${i}\``, command: `ls ${i}`, cwd, output: "" }
        : i % 3 === 1
          ? {
              type: "diff",
              title: `Edit f${i}.ts`,
              path: `${cwd}/f${i}.ts`,
              oldText: i % 2 === 0 ? null : BODY,
              newText: `${BODY}new ${i} "quoted" \\ ünïcode\n`,
            }
          : {
              type: "plan",
              title: "Plan",
              entries: [{ content: `step ${i}`, status: "in_progress", priority: "high" }],
            };
    const callId = `c${i}`;
    const args = JSON.stringify({ n: i });
    log.append({
      type: "tool_call",
      turnId,
      step: 1,
      callId,
      name: "tool",
      arguments: args,
      intent,
    });
    if (i === TURNS - 1) break; // Interrupted: a call with no result and a turn with no end.
    const done: RenderIntent =
      intent.type === "terminal"
        ? { ...intent, output: `out ${i}\n`, exit: { code: i % 5, signal: null } }
        : intent;
    log.append({
      type: "tool_result",
      turnId,
      callId,
      isError: i % 11 === 0,
      output: `result ${i}`,
      intent: done,
    });
    log.append({ type: "assistant_text", turnId, step: 2, text: `Done with ${i}.` });
    log.append({
      type: "usage",
      turnId,
      step: 2,
      promptTokens: 1000 + i,
      completionTokens: 20,
      costUsd: 0.001,
      contextWindow: 128_000,
    });
    log.append({ type: "turn_end", turnId, reason: i % 13 === 0 ? "cancelled" : "end_turn" });
  }
  return log.header.id;
}

test("a long log replays as the mapping's updates, in order, all before the response", async () => {
  using project = createProject();
  const sessionId = await writeLongSession(project.home, project.cwd);
  const { events } = await readSessionLog(project.home, sessionId);
  await using dsh = await spawnRawAcp(project);
  await dsh.initialize();

  const load = await dsh.call("session/load", { sessionId, cwd: project.cwd, mcpServers: [] });

  expect(load.error).toBeUndefined();
  const options = clientOptionsOf({
    fs: { readTextFile: true, writeTextFile: true },
    terminal: true,
  });
  const expected = [...replayUpdates(events, options), availableCommandsUpdate()];
  // Several batches, and more than the line writer's high-water mark of output.
  expect(expected.length).toBeGreaterThan(TURNS * 4);
  expect(JSON.stringify(expected).length).toBeGreaterThan(4 * HIGH_WATER_CHARS);
  const responseAt = dsh.messages.indexOf(load);
  const updatesBefore = dsh.messages
    .slice(0, responseAt)
    .filter((m) => m.method === "session/update")
    .map((m) => m.params);
  expect(updatesBefore).toEqual(expected.map((update) => ({ sessionId, update })));
  expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
});
