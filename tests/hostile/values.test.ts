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
});
