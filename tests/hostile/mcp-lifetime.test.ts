/**
 * No MCP stdio server outlives `dsh acp`: the compiled binary starts the test server (which
 * starts a child of its own and, like a busy or careless server, goes on when its stdin ends),
 * then dsh is ended by SIGKILL, SIGTERM or stdin EOF, or SIGKILLed the instant the server's
 * process exists. After a graceful end neither the server nor its child is left when dsh has
 * exited; after SIGKILL, which no handler sees, the kernel's supervision ends them within the
 * kill grace.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { zedInitialize } from "../support/acp-harness.ts";
import { spawnAcp } from "../support/acp-process.ts";
import { ensureBinary } from "../support/binary.ts";
import { startModelServer, textTurn } from "../support/model-server.ts";
import { isRunning, processesWithArgument, serverLog, stdioServer } from "../mcp/rig.ts";
import { GONE_WITHIN_MS, until } from "./processes.ts";
import { needsSupervisor } from "../support/supervisor-gate.ts";

const m = acp.methods.agent.session;

// Built, and run once, before the first case, which would otherwise spend its time compiling
// and loading a fresh binary.
beforeAll(async () => {
  const binary = await ensureBinary();
  await Bun.spawn([binary, "--version"], { stdio: ["ignore", "ignore", "ignore"] }).exited;
});

// A failed case must not leave its server running for the rest of the suite.
const started: number[] = [];
const names: string[] = [];
afterAll(() => {
  for (const pid of [...started, ...names.flatMap(processesWithArgument)]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone, as it should be.
    }
  }
});

type Ending = "SIGKILL" | "SIGTERM" | "EOF";

async function endWithServerRunning(ending: Ending): Promise<void> {
  await using model = await startModelServer();
  await using dsh = await spawnAcp({ baseUrl: model.url });
  await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(false));
  const log = join(dsh.cwd, "..", "server.log");
  const { sessionId } = await dsh.agent.request(m.new, {
    cwd: dsh.cwd,
    mcpServers: [stdioServer("stays", { MCP_TEST_LOG: log, MCP_TEST_STAY: "1" })],
  });
  model.script(textTurn("ok"));
  await dsh.agent.request(m.prompt, { sessionId, prompt: [{ type: "text", text: "hi" }] });
  const [start] = serverLog(log).starts;
  if (start === undefined) throw new Error("the server did not start");
  const pids = [start.started, start.child];
  started.push(...pids);
  expect(pids.map(isRunning)).toEqual([true, true]);

  if (ending === "EOF") {
    expect((await dsh.closeStdin()).code).toBe(0);
  } else {
    dsh.proc.kill(ending);
    await dsh.proc.exited;
  }
  if (ending === "SIGKILL") {
    await until(
      "the server and its child are gone after dsh was killed",
      () => !pids.some(isRunning),
      GONE_WITHIN_MS,
    );
  } else {
    // A graceful end stops every server's group before dsh exits.
    expect({ code: dsh.proc.exitCode, running: pids.map(isRunning) }).toEqual({
      code: 0,
      running: [false, false],
    });
  }
  expect(dsh.problems).toEqual([]);
}

describe("no MCP server outlives dsh acp", () => {
  for (const ending of ["SIGKILL", "SIGTERM", "EOF"] as const) {
    // Only the supervisor chain ends a server whose dsh was SIGKILLed.
    const register = ending === "SIGKILL" ? needsSupervisor(test) : test;
    register(`${ending} with a server and its child running`, () => endWithServerRunning(ending));
  }

  needsSupervisor(test)(
    "SIGKILL the instant the server's process exists, before it answers",
    async () => {
      await using dsh = await spawnAcp({ baseUrl: "http://127.0.0.1:9" });
      await dsh.agent.request(acp.methods.agent.initialize, zedInitialize(false));
      const name = `early-${crypto.randomUUID()}`;
      names.push(name);
      await dsh.agent.request(m.new, {
        cwd: dsh.cwd,
        mcpServers: [stdioServer(name, { MCP_TEST_STAY: "1" })],
      });
      await until(
        "the server's process exists",
        () => processesWithArgument(name).length > 0,
        10_000,
      );
      dsh.proc.kill("SIGKILL");
      await dsh.proc.exited;
      await until(
        "nothing of the server is left after dsh was killed",
        () => processesWithArgument(name).length === 0,
        GONE_WITHIN_MS,
      );
    },
  );
});
