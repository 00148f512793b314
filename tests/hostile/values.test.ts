/**
 * Hostile values in well-formed requests to the compiled `dsh acp`: working directories that
 * cannot be projects, session ids that try to name other files, odd resource links, a huge
 * prompt and config values of the wrong type. Each gets a clear error (or is taken as plain
 * data), nothing is written where it should not be, and the session log stays whole.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startModelServer, textTurn } from "../support/model-server.ts";
import { endReasons, openTurns, readStrictLog } from "./checks.ts";
import { createProject } from "./project.ts";
import { type Wire, responseTo, spawnRawAcp } from "./raw-acp.ts";

const outcome = (reply: Wire) => reply.error?.code ?? "ok";

/** Every reply must stay small whatever the client sent, so it stays readable. */
const MAX_REPLY = 4_096;

describe.concurrent("dsh acp hostile values", () => {
  test("session/new refuses a cwd that cannot be a project and says why, briefly", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const file = join(project.cwd, "notes.txt");
    writeFileSync(file, "x");
    const long = `/${"a".repeat(100_000)}`;
    const cases: [string, string][] = [
      ["project", "cwd must be an absolute path: project"],
      ["", "cwd must be an absolute path: "],
      ["~/project", "cwd must be an absolute path: ~/project"],
      [join(project.cwd, "missing"), `cwd does not exist: ${join(project.cwd, "missing")}`],
      [join(file, "below"), `cwd does not exist: ${join(file, "below")}`],
      [file, `cwd is not a directory: ${file}`],
      ["/proc/self", "cwd is inside /proc, a kernel file system, not a project directory: /proc/self"],
      ["/sys", "cwd is inside /sys, a kernel file system, not a project directory: /sys"],
      [`${project.cwd}\u0000/x`, `cwd contains a NUL byte: ${project.cwd}\u0000/x`],
      [long, `cwd is too long: ${long.slice(0, 200)}…`],
    ];
    for (const [cwd, message] of cases) {
      const reply = await dsh.call("session/new", { cwd, mcpServers: [] });
      expect([cwd.slice(0, 40), reply.error?.code, reply.error?.message]).toEqual([cwd.slice(0, 40), -32602, `Invalid params: ${message}`]);
    }
    expect(dsh.lines.every((line) => line.length < MAX_REPLY)).toBe(true);
    expect(existsSync(join(project.home, "sessions")) && readdirSync(join(project.home, "sessions")).length > 0).toBe(false);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("a session id that tries to name another file is refused before any file is touched", async () => {
    using project = createProject();
    await using model = await startModelServer();
    await using dsh = await spawnRawAcp(project, { baseUrl: model.url });
    await dsh.initialize();
    // A real session, and a well-formed log planted where a traversing id would lead.
    const real = await dsh.newSession();
    const planted = readdirSync(join(project.home, "sessions")).find((f) => f.endsWith(".jsonl")) ?? "";
    writeFileSync(join(project.root, "evil.jsonl"), readFileSync(join(project.home, "sessions", planted), "utf8"));
    const hostile = [
      "../../evil",
      "../evil",
      "..",
      ".",
      "%2e%2e%2f%2e%2e%2fevil",
      "\u2024\u2024\uff0f\u2024\u2024\uff0fevil",
      `${real.slice(0, -1)}\u0441`,
      real.toUpperCase(),
      `${real}\n`,
      `${real}/../${real}`,
      `${real}\u0000`,
      "/etc/passwd",
      "C:\\evil",
      "x".repeat(10_240),
    ];
    for (const sessionId of hostile) {
      const [load, resume] = [
        await dsh.call("session/load", { sessionId, cwd: project.cwd, mcpServers: [] }),
        await dsh.call("session/resume", { sessionId, cwd: project.cwd }),
      ];
      expect([sessionId.slice(0, 40), outcome(load), outcome(resume)]).toEqual([sessionId.slice(0, 40), -32602, -32602]);
      const live = [
        await dsh.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }),
        await dsh.call("session/set_config_option", { sessionId, configId: "model", value: "x" }),
        await dsh.call("session/close", { sessionId }),
      ];
      await dsh.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } });
      expect([sessionId.slice(0, 40), ...live.map(outcome)]).toEqual([sessionId.slice(0, 40), -32002, -32002, -32002]);
    }
    expect(dsh.lines.filter((line) => line.length >= MAX_REPLY)).toEqual([]);
    expect(readdirSync(join(project.home, "sessions")).sort()).toEqual([`${real}.jsonl`, `${real}.lock`].sort());
    expect(readdirSync(project.root).sort()).toEqual(["config.toml", "evil.jsonl", "home", "project", "user"]);
    // The real session is untouched by all of it and still answers.
    model.script(textTurn("still here"));
    const reply = await dsh.waitFor(responseTo(await dsh.prompt(real, "hello")));
    expect(reply.result).toEqual({ stopReason: "end_turn" });
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("config values of the wrong type or unknown are refused and change nothing", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const sessionId = await dsh.newSession();
    const values: [string, unknown, number][] = [
      ["model", 5, -32602],
      ["model", true, -32602],
      ["model", null, -32602],
      ["model", ["deepseek-v4-pro"], -32602],
      ["model", { value: "deepseek-v4-pro" }, -32602],
      ["model", "", -32602],
      ["model", "no-such-model", -32602],
      ["model", "x".repeat(1_000_000), -32602],
      ["permission", "custom", -32602],
      ["permission", "READ-ONLY", -32602],
      ["effort", "extreme", -32602],
      ["nope", "x", -32602],
      ["__proto__", "x", -32602],
      ["constructor", "x", -32602],
    ];
    for (const [configId, value, code] of values) {
      const reply = await dsh.call("session/set_config_option", { sessionId, configId, value });
      expect([configId, String(value).slice(0, 30), outcome(reply)]).toEqual([configId, String(value).slice(0, 30), code]);
    }
    const typed = await dsh.call("session/set_config_option", { sessionId, configId: "permission", type: "boolean", value: true });
    expect(typed.error?.message).toBe("Invalid params: config option permission is not a boolean");
    expect(dsh.lines.every((line) => line.length < MAX_REPLY)).toBe(true);
    // Nothing changed: setting the defaults again reports them as they were.
    const same = await dsh.call("session/set_config_option", { sessionId, configId: "effort", value: "high" });
    expect(same.result).toMatchObject({
      configOptions: [
        { id: "permission", currentValue: "workspace-write" },
        { id: "model", currentValue: "deepseek-flash" },
        { id: "effort", currentValue: "high" },
      ],
    });
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
    const events = await readStrictLog(project.logPath(sessionId));
    expect({ events: events.length, open: openTurns(events) }).toEqual({ events: 0, open: [] });
  });
});
