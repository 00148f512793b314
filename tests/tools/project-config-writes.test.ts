/**
 * The file tools ask before writing protected project configuration (`.vscode/`, `.npmrc`,
 * ...), at the top of the project and in nested ones, under every preset but
 * danger-full-access; where nobody may be asked the write is turned down.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { PRESETS } from "../../src/permission/knobs.ts";
import type { Knobs } from "../../src/permission/knobs.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { coreTools, makeSandbox, recordingAnswerer, toolContext } from "./harness.ts";
import type { Sandbox } from "./harness.ts";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
});
afterEach(() => box[Symbol.dispose]());

async function write(file: string, knobs: Knobs, decision: "allow" | "deny" | "pass" = "allow") {
  const registry = createToolRegistry(coreTools({ homeDir: box.home }));
  const answerer = recordingAnswerer(decision);
  const ctx = toolContext(box.root, { knobs, answerers: [answerer] });
  const call = await registry.execute(
    "write_file",
    JSON.stringify({ path: file, content: "{}\n" }),
    ctx,
  );
  return {
    isError: call.result.isError,
    reasons: answerer.requests.map((request) => request.reason),
    output: call.result.output,
  };
}

const FILES = [
  ".vscode/settings.json",
  ".idea/workspace.xml",
  ".zed/settings.json",
  ".claude/settings.json",
  ".codex/config.toml",
  ".agents/skills/x/SKILL.md",
  ".mcp.json",
  ".envrc",
  ".devcontainer/devcontainer.json",
  ".github/workflows/ci.yml",
  ".npmrc",
  ".yarnrc.yml",
  ".cargo/config.toml",
  ".cargo/config",
  ".pre-commit-config.yaml",
  "packages/web/.npmrc",
];

test("under workspace-write each protected file asks first, naming what reads it", async () => {
  for (const file of FILES) {
    const result = await write(file, PRESETS["workspace-write"]);
    expect({ file, isError: result.isError, asked: result.reasons.length }).toEqual({
      file,
      isError: false,
      asked: 1,
    });
  }
  const vscode = await write(".vscode/tasks.json", PRESETS["workspace-write"]);
  expect(vscode.reasons).toEqual([
    `${path.join(box.root, ".vscode")}/ is project configuration: VS Code's workspace settings and tasks, which it runs on its own`,
  ]);
  // Its neighbours are ordinary files.
  expect(await write(".github/dependabot.yml", PRESETS["workspace-write"])).toMatchObject({
    isError: false,
    reasons: [],
  });
});

test("a denied or unanswerable ask writes nothing; danger-full-access writes without asking", async () => {
  const denied = await write(".npmrc", PRESETS["workspace-write"], "deny");
  expect(denied.isError).toBe(true);
  const nobody = await write(".vscode/settings.json", {
    ...PRESETS["workspace-write"],
    approvalPolicy: "never",
  });
  expect(nobody.isError).toBe(true);
  expect(nobody.output).toContain("which the approval policy never gives");
  expect(fs.existsSync(path.join(box.root, ".npmrc"))).toBe(false);
  expect(fs.existsSync(path.join(box.root, ".vscode"))).toBe(false);
  const full = await write(".npmrc", PRESETS["danger-full-access"]);
  expect(full).toMatchObject({ isError: false, reasons: [] });
});

test("a symlink that leads into protected configuration asks too", async () => {
  fs.mkdirSync(path.join(box.root, ".vscode"));
  fs.symlinkSync(".vscode", path.join(box.root, "v"));
  const result = await write("v/settings.json", PRESETS["workspace-write"]);
  expect(result.reasons.length).toBe(1);
});
