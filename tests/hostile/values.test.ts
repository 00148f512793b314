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
import { startSession } from "./session-rig.ts";
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
      [
        "/proc/self",
        "cwd is inside /proc, a kernel file system, not a project directory: /proc/self",
      ],
      ["/sys", "cwd is inside /sys, a kernel file system, not a project directory: /sys"],
      [`${project.cwd}\u0000/x`, `cwd contains a NUL byte: ${project.cwd}\u0000/x`],
      [long, `cwd is too long: ${long.slice(0, 200)}…`],
    ];
    for (const [cwd, message] of cases) {
      const reply = await dsh.call("session/new", { cwd, mcpServers: [] });
      expect([cwd.slice(0, 40), reply.error?.code, reply.error?.message]).toEqual([
        cwd.slice(0, 40),
        -32602,
        `Invalid params: ${message}`,
      ]);
    }
    expect(dsh.lines.every((line) => line.length < MAX_REPLY)).toBe(true);
    expect(
      existsSync(join(project.home, "sessions")) &&
        readdirSync(join(project.home, "sessions")).length > 0,
    ).toBe(false);
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("a session id that tries to name another file is refused before any file is touched", async () => {
    // A real session, and a well-formed log planted where a traversing id would lead.
    await using rig = await startSession();
    const { project, model, dsh, sessionId: real } = rig;
    const planted =
      readdirSync(join(project.home, "sessions")).find((f) => f.endsWith(".jsonl")) ?? "";
    writeFileSync(
      join(project.root, "evil.jsonl"),
      readFileSync(join(project.home, "sessions", planted), "utf8"),
    );
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
      expect([sessionId.slice(0, 40), outcome(load), outcome(resume)]).toEqual([
        sessionId.slice(0, 40),
        -32602,
        -32602,
      ]);
      const live = [
        await dsh.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }),
        await dsh.call("session/set_config_option", { sessionId, configId: "model", value: "x" }),
        await dsh.call("session/close", { sessionId }),
      ];
      await dsh.send({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } });
      expect([sessionId.slice(0, 40), ...live.map(outcome)]).toEqual([
        sessionId.slice(0, 40),
        -32002,
        -32002,
        -32002,
      ]);
    }
    expect(dsh.lines.filter((line) => line.length >= MAX_REPLY)).toEqual([]);
    expect(readdirSync(join(project.home, "sessions")).sort()).toEqual(
      [`${real}.jsonl`, `${real}.lock`].sort(),
    );
    expect(readdirSync(project.root).sort()).toEqual([
      "config.toml",
      "evil.jsonl",
      "home",
      "project",
      "user",
    ]);
    // The real session is untouched by all of it and still answers.
    model.script(textTurn("still here"));
    const reply = await dsh.waitFor(responseTo(await dsh.prompt(real, "hello")));
    expect(reply.result).toEqual({ stopReason: "end_turn" });
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });

  test("resource links are passed on as links: dsh reads no file, runs no uri, and a huge name is shortened in the title", async () => {
    using project = createProject();
    await using model = await startModelServer();
    const secret = join(project.root, "user", "secret.txt");
    writeFileSync(secret, "TOP-SECRET-CONTENT");
    const hugeName = `n${"ame ".repeat(256 * 1024)}`;
    const links = [
      { type: "resource_link", uri: `file://${secret}`, name: "secret.txt" },
      {
        type: "resource_link",
        uri: "javascript:alert(document.cookie)",
        name: "click me",
        mimeType: "text/html",
      },
      {
        type: "resource_link",
        uri: "file:///etc/shadow",
        name: hugeName,
        title: "t".repeat(10_000),
      },
    ];
    {
      await using dsh = await spawnRawAcp(project, { baseUrl: model.url });
      await dsh.initialize();
      const sessionId = await dsh.newSession();
      model.script(textTurn("noted"));
      const reply = await dsh.call("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "look" }, ...links],
      });
      expect(reply.result).toEqual({ stopReason: "end_turn" });
      const sent = JSON.stringify(model.requests[0]?.body.messages);
      expect(sent).toContain(`[secret.txt](file://${secret})`);
      expect(sent).toContain("[click me](javascript:alert(document.cookie))");
      expect(sent).not.toContain("TOP-SECRET-CONTENT");
      const title: unknown = dsh
        .updates(sessionId)
        .find((u) => JSON.stringify(u).includes('"title"'));
      expect(title).toEqual({ sessionUpdate: "session_info_update", title: "look" });
      const events = await readStrictLog(project.logPath(sessionId));
      expect(events.find((e) => e.type === "user_message")).toMatchObject({
        content: [{ type: "text", text: "look" }, ...links],
      });
      expect(await dsh.finish()).toEqual({ code: 0, problems: [] });

      // A new process replays the links exactly, on a stdout that stays schema-valid.
      await using again = await spawnRawAcp(project, { baseUrl: model.url });
      await again.initialize();
      const load = await again.call("session/load", {
        sessionId,
        cwd: project.cwd,
        mcpServers: [],
      });
      expect(outcome(load)).toBe("ok");
      const replayed = again
        .updates(sessionId)
        .filter(
          (u) =>
            typeof u === "object" &&
            u !== null &&
            "sessionUpdate" in u &&
            u.sessionUpdate === "user_message_chunk",
        );
      expect(replayed).toEqual([
        { sessionUpdate: "user_message_chunk", content: { type: "text", text: "look" } },
        ...links.map((content) => ({ sessionUpdate: "user_message_chunk", content })),
      ]);
      expect(await again.finish()).toEqual({ code: 0, problems: [] });
    }
  });

  test("a 5 MB prompt is taken whole: sent to the model, logged, titled in 80 characters", async () => {
    await using rig = await startSession();
    const { project, model, dsh, sessionId } = rig;
    const text = `${"word ".repeat(1_000_000)}end`;
    model.script(textTurn("long read"));
    const reply = await dsh.waitFor(responseTo(await dsh.prompt(sessionId, text)));
    expect(reply.result).toEqual({ stopReason: "end_turn" });
    expect(JSON.stringify(model.requests[0]?.body.messages)).toContain(`word end`);
    const events = await readStrictLog(project.logPath(sessionId));
    const logged = events.find((e) => e.type === "user_message");
    expect(
      logged?.type === "user_message" && logged.content[0]?.type === "text"
        ? logged.content[0].text.length
        : 0,
    ).toBe(text.length);
    expect(endReasons(events)).toEqual(["end_turn"]);
    const info = dsh
      .updates(sessionId)
      .find((u) => (u as { sessionUpdate?: string }).sessionUpdate === "session_info_update");
    expect(info).toEqual({
      sessionUpdate: "session_info_update",
      title: `${"word ".repeat(16).trimEnd()}…`,
    });
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
      expect([configId, String(value).slice(0, 30), outcome(reply)]).toEqual([
        configId,
        String(value).slice(0, 30),
        code,
      ]);
    }
    const typed = await dsh.call("session/set_config_option", {
      sessionId,
      configId: "permission",
      type: "boolean",
      value: true,
    });
    expect(typed.error?.message).toBe("Invalid params: config option permission is not a boolean");
    expect(dsh.lines.every((line) => line.length < MAX_REPLY)).toBe(true);
    // Nothing changed: setting the defaults again reports them as they were.
    const same = await dsh.call("session/set_config_option", {
      sessionId,
      configId: "effort",
      value: "high",
    });
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

describe.concurrent("dsh acp hostile cwd on load and resume", () => {
  test("load and resume of a real session refuse a cwd that is not its own, briefly", async () => {
    using project = createProject();
    await using dsh = await spawnRawAcp(project);
    await dsh.initialize();
    const sessionId = await dsh.newSession();
    await dsh.call("session/close", { sessionId });
    const other = join(project.root, "user");
    for (const cwd of [
      "project",
      other,
      `${project.cwd}\u0000`,
      `${project.cwd}/${"a".repeat(100_000)}`,
      "/proc/self",
    ]) {
      for (const method of ["session/load", "session/resume"]) {
        const reply = await dsh.call(method, { sessionId, cwd, mcpServers: [] });
        expect([method, cwd.slice(0, 60), reply.error?.code]).toEqual([
          method,
          cwd.slice(0, 60),
          -32602,
        ]);
      }
    }
    expect(
      dsh.lines.filter((line) => line.length >= MAX_REPLY).map((line) => line.slice(0, 300)),
    ).toEqual([]);
    const load = await dsh.call("session/load", { sessionId, cwd: project.cwd, mcpServers: [] });
    expect(load.error).toBeUndefined();
    expect(await dsh.finish()).toEqual({ code: 0, problems: [] });
  });
});
