/**
 * Presets as an editor meets them, through the compiled `dsh acp`: under `read-only` a write in
 * the project asks (and a reject leaves the file unwritten); after switching to
 * `danger-full-access` nothing asks, even a write outside the project or an escalation.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { zedInitialize } from "../support/acp-harness.ts";
import { spawnAcp } from "../support/acp-process.ts";
import { startModelServer, textTurn, toolTurn } from "../support/model-server.ts";
import { currentValues } from "../permission/rig.ts";

const m = acp.methods.agent.session;

describe("dsh acp permission presets", () => {
  test("read-only asks before a write; danger-full-access asks for nothing", async () => {
    await using model = await startModelServer();
    await using dsh = await spawnAcp({ baseUrl: model.url, env: { DSH_PERMISSION: "read-only" } });
    await using outside = disposableDir();
    await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(false));
    const { sessionId, configOptions } = await dsh.agent.request(m.new, {
      cwd: dsh.cwd,
      mcpServers: [],
    });
    expect(currentValues(configOptions).permission).toBe("read-only");
    const prompt = (text: string) =>
      dsh.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text }] });
    const asked = () =>
      dsh.lines.filter((line) => line.includes('"session/request_permission"')).length;

    model.script(
      toolTurn([{ id: "w1", name: "write_file", args: { path: "notes.txt", content: "x" } }]),
      textTurn("ok"),
    );
    expect(await prompt("write notes")).toEqual({ stopReason: "end_turn" });
    expect(asked()).toBe(1);
    expect(existsSync(join(dsh.cwd, "notes.txt"))).toBe(false);

    await dsh.agent.request(m.setConfigOption, {
      sessionId,
      configId: "permission",
      value: "danger-full-access",
    });
    const far = join(outside.path, "far.txt");
    model.script(
      toolTurn([
        { id: "w2", name: "write_file", args: { path: "notes.txt", content: "x" } },
        { id: "w3", name: "write_file", args: { path: far, content: "y" } },
        { id: "b1", name: "bash", args: { command: "touch ran", escalate: true } },
      ]),
      textTurn("ok"),
    );
    expect(await prompt("write everything")).toEqual({ stopReason: "end_turn" });
    expect(asked()).toBe(1);
    expect(
      [join(dsh.cwd, "notes.txt"), far, join(dsh.cwd, "ran")].map((p) => existsSync(p)),
    ).toEqual([true, true, true]);
    expect(dsh.problems).toEqual([]);
  });
});

function disposableDir() {
  const path = mkdtempSync(join(tmpdir(), "dsh-outside-"));
  return {
    path,
    [Symbol.asyncDispose]: async () => rmSync(path, { recursive: true, force: true }),
  };
}
