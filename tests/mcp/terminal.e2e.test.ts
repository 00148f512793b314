/**
 * The config file's MCP servers in the terminal, through the compiled binary: `dsh exec`
 * starts them, says on stderr which one failed, and leaves no process behind, even when it is
 * SIGKILLed; `dsh doctor` shows each server and its state.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GONE_WITHIN_MS, until } from "../hostile/processes.ts";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import { watchOutput } from "../support/process-output.ts";
import { isRunning, offeredTools, serverLog, stdioTable, toolMessages } from "./rig.ts";
import { needsSupervisor } from "../support/supervisor-gate.ts";

let rig: CliRig;
beforeAll(async () => {
  rig = await startCliRig("dsh-mcp-terminal");
});
afterAll(async () => {
  await rig[Symbol.asyncDispose]();
});

const broken = '[mcp_servers.broken]\ncommand = "/nonexistent/mcp-server"\n';

describe("MCP servers in the terminal", () => {
  test("dsh exec starts the config file's servers, reports the one that failed, and stops the rest", async () => {
    const project = rig.project("exec");
    const log = join(project.base, "t.log");
    writeFileSync(
      join(project.base, "config.toml"),
      `${stdioTable("t", { MCP_TEST_LOG: log })}\n${broken}`,
    );
    const first = rig.server.requests.length;
    rig.server.script(
      toolTurn([{ id: "e1", name: "mcp__t__echo", args: { text: "from exec" } }]),
      textTurn("done"),
    );
    const run = await rig.run(["exec", "echo something"], project, {
      env: { ...project.env, DSH_PERMISSION: "danger-full-access" },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("done");
    expect(run.stderr).toContain(
      "MCP server broken did not start: command not found: /nonexistent/mcp-server; its tools are not available",
    );
    expect(offeredTools(rig.server.requests[first]).filter((t) => t.startsWith("mcp__"))).toContain(
      "mcp__t__echo",
    );
    expect(toolMessages(rig.server.requests[first + 1]).e1).toBe("echo from t: from exec");
    const [started] = serverLog(log).starts;
    expect(started === undefined ? [] : [started.started, started.child].map(isRunning)).toEqual([
      false,
      false,
    ]);
  });

  // Only the supervisor chain ends a server whose dsh was SIGKILLed.
  needsSupervisor(test)(
    "a dsh exec SIGKILLed mid-turn leaves neither the server nor its child running",
    async () => {
      const project = rig.project("killed");
      const log = join(project.base, "t.log");
      // A server that does not end with its stdin: only dsh's supervision can end it.
      writeFileSync(
        join(project.base, "config.toml"),
        stdioTable("t", { MCP_TEST_LOG: log, MCP_TEST_STAY: "1" }),
      );
      const asked = rig.server.requests.length;
      rig.server.script({ respond: { hang: true } });
      const run = rig.start(["exec", "wait"], project);
      await until("the model is asked", () => rig.server.requests.length > asked, GONE_WITHIN_MS);
      const [started] = serverLog(log).starts;
      if (started === undefined) throw new Error("the server did not start");
      const pids = [started.started, started.child];
      process.kill(run.pid, "SIGKILL");
      await run.done;
      try {
        await until(
          "the server and its child are gone",
          () => !pids.some(isRunning),
          GONE_WITHIN_MS,
        );
      } finally {
        // A failure must not leave them running for the rest of the suite.
        for (const pid of pids.filter(isRunning)) process.kill(pid, "SIGKILL");
      }
    },
  );

  test("dsh chat starts them too and asks before each call, showing its arguments", async () => {
    const project = rig.project("chat");
    const log = join(project.base, "t.log");
    writeFileSync(join(project.base, "config.toml"), stdioTable("t", { MCP_TEST_LOG: log }));
    const proc = Bun.spawn([rig.binary, "chat"], {
      cwd: project.cwd,
      env: project.env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stdout = watchOutput(proc.stdout);
    const say = async (line: string) => {
      proc.stdin.write(`${line}\n`);
      await proc.stdin.flush();
    };
    rig.server.script(
      toolTurn([{ id: "n1", name: "mcp__t__echo", args: { text: "refused words" } }]),
      textTurn("was refused"),
      toolTurn([{ id: "y1", name: "mcp__t__echo", args: { text: "allowed words" } }]),
      textTurn("was allowed"),
      toolTurn([{ id: "a1", name: "mcp__t__echo", args: { text: "always words" } }]),
      textTurn("was always allowed"),
      toolTurn([{ id: "r1", name: "mcp__t__echo", args: { text: "ruled words" } }]),
      textTurn("ran by the rule"),
    );
    await say("echo one");
    await stdout.waitFor("Allow? [y/a/N]");
    expect(stdout.text()).toContain(
      `a: always allow: saves the rule "call \`echo\` of the MCP server \`t\`" for ${project.cwd}`,
    );
    expect(stdout.text()).toContain(
      '? Call echo on the MCP server t\n  MCP server t, tool echo\n  {\n    "text": "refused words"\n  }\n',
    );
    await say("n");
    await stdout.waitFor("was refused");
    await say("echo two");
    // Typeahead is dropped before the question is printed, so an answer sent after it counts.
    await stdout.waitFor('"text": "allowed words"');
    await say("y");
    await stdout.waitFor("was allowed");
    // "a" saves a rule for this one tool in this project: the next call is not asked about.
    await say("echo three");
    await stdout.waitFor('"text": "always words"');
    await say("a");
    await stdout.waitFor("was always allowed");
    await say("echo four");
    await stdout.waitFor("ran by the rule");
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
    expect(stdout.text()).not.toContain('"text": "ruled words"');
    expect(serverLog(log).calls).toEqual([
      { tool: "echo", args: { text: "allowed words" } },
      { tool: "echo", args: { text: "always words" } },
      { tool: "echo", args: { text: "ruled words" } },
    ]);
  });

  test("dsh doctor shows each configured server and its state", async () => {
    const project = rig.project("doctor", `${stdioTable("t")}\n${broken}`);
    const run = await rig.run(["doctor"], project);
    expect(run.stdout).toContain("✓ mcp server t: ready, 7 tools");
    expect(run.stdout).toContain(
      "✗ mcp server broken: failed: command not found: /nonexistent/mcp-server",
    );
    expect(run.code).toBe(1);
  });
});
