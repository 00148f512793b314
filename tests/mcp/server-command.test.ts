import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectSafeCommand, serverSearchPath } from "../../src/mcp/server-command.ts";
import { tempDir } from "../exec/helpers.ts";

function executable(path: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, 0o755);
}

test("PATH entries inside the project, through a symlink too, and relative ones are left out", () => {
  using dir = tempDir();
  const project = join(dir.path, "p");
  mkdirSync(join(project, ".venv", "bin"), { recursive: true });
  symlinkSync(join(project, ".venv", "bin"), join(dir.path, "venv-link"));
  const search = serverSearchPath(
    [
      join(project, ".venv/bin"),
      "node_modules/.bin",
      "",
      join(dir.path, "venv-link"),
      "/usr/bin",
    ].join(":"),
    [project],
  );
  expect(search.path).toBe("/usr/bin");
  expect(search.dropped.map(({ entry }) => entry)).toEqual([
    join(project, ".venv/bin"),
    "node_modules/.bin",
    "",
    join(dir.path, "venv-link"),
  ]);
});

test("a command is found outside the project, refused when only the project has it, and taken as given when absolute", () => {
  using dir = tempDir();
  const project = join(dir.path, "p");
  executable(join(project, ".venv/bin/srv"));
  executable(join(project, "bin/local"));
  executable(join(dir.path, "tools/srv"));
  const search = serverSearchPath(`${join(project, ".venv/bin")}:${join(dir.path, "tools")}`, [
    project,
  ]);
  expect(projectSafeCommand("srv", project, search, [project])).toEqual({
    ok: true,
    path: join(dir.path, "tools/srv"),
  });
  const onlyVenv = serverSearchPath(join(project, ".venv/bin"), [project]);
  expect(projectSafeCommand("srv", project, onlyVenv, [project])).toEqual({
    ok: false,
    reason: `srv would run from ${join(project, ".venv/bin")}, a PATH entry inside the project ${project}, where sandboxed commands can write; dsh does not start an MCP server from there: give the absolute path of the one you mean as the server's command`,
  });
  expect(projectSafeCommand("bin/local", project, search, [project]).ok).toBe(false);
  expect(projectSafeCommand(join(project, "bin/local"), project, search, [project])).toEqual({
    ok: true,
    path: join(project, "bin/local"),
  });
  expect(projectSafeCommand("missing", project, search, [project])).toEqual({
    ok: false,
    reason: "command not found: missing",
  });
});
