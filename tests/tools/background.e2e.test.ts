/**
 * Background commands through the compiled `dsh acp` and the scripted model: a server the model
 * starts with `bash` `run_in_background` is reached by a later command of the same session,
 * read with `bash_output` and ended with `bash_kill` (nothing of it left in /proc); one left
 * running ends with its session's close, and with a SIGKILL of dsh (the supervisor chain).
 */
import { describe, expect } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import * as acp from "@agentclientprotocol/sdk";
import type { AcpProcess } from "../support/acp-process.ts";
import { acpSessionRig } from "../support/acp-session.ts";
import { runIf } from "../support/gate.ts";
import { type RecordedRequest, textTurn, toolTurn } from "../support/model-server.ts";
import { sandboxSerialTest } from "../support/sandbox-gate.ts";
import { backgroundServer } from "../support/background-server.ts";

const m = acp.methods.agent.session;
const PYTHON = "/usr/bin/python3";
const pythonTest = runIf(existsSync(PYTHON), sandboxSerialTest, `no ${PYTHON} here`);

const rig = acpSessionRig();
const start = () => rig.start({ terminalOutput: true });

function prompt(dsh: AcpProcess, sessionId: string, text: string) {
  return dsh.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text }] });
}

/** The last tool message of a recorded request. */
function lastToolMessage(request: RecordedRequest | undefined): string {
  const messages = (request?.body.messages ?? []) as { role: string; content: string }[];
  const content = messages.filter((message) => message.role === "tool").at(-1)?.content ?? "";
  return content.replace(/; \d+\.\d s\]/, "; TIME]");
}

/** Pids whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let cmdline = "";
    try {
      cmdline = readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ");
    } catch {
      continue;
    }
    if (cmdline.includes(marker) && Number(name) !== process.pid) found.push(Number(name));
  }
  return found;
}

/** Resolves once no process holds `marker` (the kill is asynchronous to the request's end). */
async function gone(marker: string): Promise<void> {
  while (processesWith(marker).length > 0) await Bun.sleep(20);
}

/** A session whose model started `command` in the background, once it runs. */
async function startSleeper(command: string): Promise<{ dsh: AcpProcess; sessionId: string }> {
  const started = await start();
  rig
    .model()
    .script(
      toolTurn([{ id: "s1", name: "bash", args: { command, run_in_background: true } }]),
      textTurn("started"),
    );
  await prompt(started.dsh, started.sessionId, "start it");
  // The call answers at once; the command starts a moment later.
  while (processesWith(command).length === 0) await Bun.sleep(10);
  return started;
}

describe("background commands", () => {
  pythonTest(
    "a background server is reached by a later command, read, and killed",
    async () => {
      const { dsh, sessionId } = await start();
      await using _ = dsh;
      const port = 18_123;
      const { server, turns } = backgroundServer(PYTHON, port);
      const before = rig.model().requests.length;
      rig
        .model()
        .script(
          ...turns,
          toolTurn([{ id: "b3", name: "bash_output", args: { id: "bg-1", wait_ms: 5000 } }]),
          toolTurn([{ id: "b4", name: "bash_kill", args: { id: "bg-1" } }]),
          toolTurn([{ id: "b5", name: "bash_output", args: { id: "bg-1" } }]),
          textTurn("done"),
        );
      const answer = await prompt(dsh, sessionId, "serve and reach it");
      expect(answer.stopReason).toBe("end_turn");
      const results = rig
        .model()
        .requests.slice(before + 1)
        .map(lastToolMessage);
      expect(results[0]).toStartWith("id: bg-1\n");
      expect(results[1]).toBe("[exit code 0; sandbox: workspace-write; TIME]\nreached\n");
      expect(results[2]).toMatch(/"GET \/ HTTP\/1\.1" 200/);
      expect(results[2]).toEndWith("\nstatus: running");
      expect(results[3]).toBe(`bg-1: ${server}\nstatus: killed`);
      expect(results[4]).toEndWith("\nstatus: killed");
      expect(processesWith(`http.server ${port}`)).toEqual([]);
      // Its card: done at once, its terminal live with the server's log until the kill ends it.
      const card = dsh.updates
        .filter((n) => n.sessionId === sessionId)
        .map((n) => n.update)
        .filter(
          (update) => update.sessionUpdate === "tool_call_update" && update.toolCallId === "b1",
        );
      const done = card.findIndex((update) => "status" in update && update.status === "completed");
      const meta = card.map((update) => update._meta ?? {});
      const served = meta.findIndex((m) =>
        JSON.stringify(m.terminal_output ?? "").includes("GET / HTTP/1.1"),
      );
      const exited = meta.findIndex((m) => m.terminal_exit !== undefined);
      expect(done).toBeGreaterThanOrEqual(0);
      expect(meta[done]?.terminal_exit).toBeUndefined();
      expect(served).toBeGreaterThan(done);
      expect(exited).toBe(card.length - 1);
      expect(meta[exited]?.terminal_exit).toEqual({
        terminal_id: "b1",
        exit_code: null,
        signal: "SIGKILL",
      });
      expect(dsh.problems).toEqual([]);
    },
    60_000,
  );

  sandboxSerialTest(
    "the ninth background command is refused with the list of running ones",
    async () => {
      const { dsh, sessionId } = await start();
      await using _ = dsh;
      const calls = Array.from({ length: 9 }, (_, i) => ({
        id: `s${i}`,
        name: "bash",
        args: { command: `sleep 98761${i}`, run_in_background: true },
      }));
      const before = rig.model().requests.length;
      rig.model().script(toolTurn(calls), textTurn("done"));
      await prompt(dsh, sessionId, "start nine");
      const messages = (rig.model().requests[before + 1]?.body.messages ?? []) as {
        role: string;
        content: string;
      }[];
      const tools = messages.filter((message) => message.role === "tool").map((t) => t.content);
      expect(tools.slice(0, 8).every((text) => text.startsWith("id: bg-"))).toBe(true);
      expect(tools[8]).toContain("At most 8 background commands run at once");
      expect(tools[8]).toContain("- bg-1: sleep 987610");
      await dsh.agent.request(m.close, { sessionId });
      await gone("sleep 98761");
    },
    60_000,
  );

  sandboxSerialTest(
    "one left running ends with its session's close",
    async () => {
      const { dsh, sessionId } = await startSleeper("sleep 987621");
      await using _ = dsh;
      await dsh.agent.request(m.close, { sessionId });
      // Close answers once the session's processes are gone.
      expect(processesWith("sleep 987621")).toEqual([]);
    },
    60_000,
  );

  const ends: [string, (dsh: AcpProcess, sessionId: string) => Promise<unknown>][] = [
    ["the session's delete", (dsh, sessionId) => dsh.agent.request(m.delete, { sessionId })],
    ["stdin's end (EOF)", (dsh) => dsh.closeStdin()],
    [
      "SIGTERM",
      (dsh) => {
        dsh.proc.kill("SIGTERM");
        return dsh.proc.exited;
      },
    ],
  ];
  for (const [what, end] of ends) {
    sandboxSerialTest(
      `one left running ends with ${what}`,
      async () => {
        const marker = `sleep 98764${ends.findIndex(([name]) => name === what)}`;
        const { dsh, sessionId } = await startSleeper(marker);
        await using _ = dsh;
        await end(dsh, sessionId);
        await gone(marker);
      },
      60_000,
    );
  }

  sandboxSerialTest(
    "one left running ends when dsh is killed with SIGKILL",
    async () => {
      const { dsh } = await startSleeper("sleep 987631");
      await using _ = dsh;
      dsh.proc.kill("SIGKILL");
      await dsh.proc.exited;
      await gone("sleep 987631");
    },
    60_000,
  );
});
