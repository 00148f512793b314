/**
 * The compiled `dsh acp` answers `session/new` before it composes the agent: what a client
 * sends at once after that answer is served as if the session had been open all along.
 */
import { expect } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { zedInitialize } from "../support/acp-harness.ts";
import { spawnAcp } from "../support/acp-process.ts";
import { startModelServer, textTurn } from "../support/model-server.ts";
import { sandboxSerialTest as sandboxed } from "../support/sandbox-gate.ts";

const m = acp.methods.agent.session;

sandboxed(
  "a prompt sent the moment session/new is answered gets its answer, then the command list",
  async () => {
    await using model = await startModelServer();
    await using dsh = await spawnAcp({ baseUrl: model.url });
    await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(true));
    model.script(textTurn("at once"));
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    const result = await dsh.agent.request(m.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "quick" }],
    });
    expect(result).toEqual({ stopReason: "end_turn" });
    const chunks = dsh.updates
      .filter((n) => n.sessionId === sessionId)
      .flatMap((n) =>
        n.update.sessionUpdate === "agent_message_chunk" && n.update.content.type === "text"
          ? [n.update.content.text]
          : [],
      );
    expect(chunks.join("")).toBe("at once");
    await dsh.waitForUpdate(sessionId, (u) => u.sessionUpdate === "available_commands_update");
    expect((await dsh.closeStdin()).code).toBe(0);
    expect(dsh.problems).toEqual([]);
  },
);

sandboxed(
  "stdin EOF right after session/new: dsh exits 0 and the session's log is there to load",
  async () => {
    await using model = await startModelServer();
    await using dsh = await spawnAcp({ baseUrl: model.url });
    await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(true));
    const { sessionId } = await dsh.agent.request(m.new, { cwd: dsh.cwd, mcpServers: [] });
    expect((await dsh.closeStdin()).code).toBe(0);
    const log = join(dsh.home, "sessions", `${sessionId}.jsonl`);
    expect(JSON.parse(readFileSync(log, "utf8").split("\n")[0] ?? "")).toMatchObject({
      type: "header",
      id: sessionId,
    });
    // The writer let go: no lock file is left behind.
    expect(existsSync(join(dsh.home, "sessions", `${sessionId}.lock`))).toBe(false);
    expect(dsh.problems).toEqual([]);
  },
);
