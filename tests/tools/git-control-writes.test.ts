/**
 * The file tools never write what makes git run a command: the hook scripts of the repository
 * that contains the session (found above a subfolder too, husky's whole `.husky/`) and every
 * config file git reads for it, includes followed. Real files, real tools, full access.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { PRESETS } from "../../src/permission/knobs.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { coreTools, makeSandbox, recordingAnswerer, toolContext } from "./harness.ts";
import type { Sandbox } from "./harness.ts";

let box: Sandbox;
beforeEach(() => {
  box = makeSandbox();
  box.write(".git/HEAD", "ref: refs/heads/main\n");
  fs.mkdirSync(path.join(box.root, ".git/objects"));
});
afterEach(() => box[Symbol.dispose]());

async function attempt(cwd: string, tool: string, args: Record<string, unknown>) {
  const registry = createToolRegistry(coreTools({ homeDir: box.home }));
  const answerer = recordingAnswerer("allow");
  const ctx = toolContext(cwd, { knobs: PRESETS["danger-full-access"], answerers: [answerer] });
  const call = await registry.execute(tool, JSON.stringify(args), ctx);
  return { isError: call.result.isError, asked: answerer.requests.length };
}

test("husky v9 (core.hooksPath=.husky/_): the hook scripts in .husky/ are never written", async () => {
  box.write(".git/config", "[core]\n\thooksPath = .husky/_\n");
  box.write(".husky/_/h", "wrapper\n");
  box.write(".husky/pre-commit", "npm test\n");
  const results = [];
  for (const file of [".husky/pre-commit", ".husky/pre-push", ".husky/_/h"]) {
    results.push(await attempt(box.root, "write_file", { path: file, content: "evil\n" }));
  }
  expect(results).toEqual(Array(3).fill({ isError: true, asked: 0 }));
  expect([
    box.read(".husky/pre-commit"),
    fs.existsSync(path.join(box.root, ".husky/pre-push")),
  ]).toEqual(["npm test\n", false]);
});

test("a session in a subfolder finds the repository above it and keeps its hooks", async () => {
  box.write(".git/config", "[core]\n\thooksPath = pkg/.husky\n");
  box.write("pkg/.husky/pre-commit", "npm test\n");
  const pkg = path.join(box.root, "pkg");
  const results = [
    await attempt(pkg, "write_file", { path: ".husky/pre-commit", content: "evil\n" }),
    await attempt(pkg, "edit_file", {
      path: ".husky/pre-commit",
      old_string: "npm test",
      new_string: "evil",
    }),
    await attempt(pkg, "write_file", { path: "src/ok.ts", content: "ok\n" }),
  ];
  expect(results).toEqual([
    { isError: true, asked: 0 },
    { isError: true, asked: 0 },
    { isError: false, asked: 0 },
  ]);
  expect(box.read("pkg/.husky/pre-commit")).toBe("npm test\n");
});

test("a file the repository's config includes (conditionally too) is never written", async () => {
  box.write(
    ".git/config",
    '[include]\n\tpath = ../.gitconfig.shared\n[includeIf "onbranch:main"]\n\tpath = ../extra.gitconfig\n',
  );
  box.write(".gitconfig.shared", "[user]\n\tname = x\n");
  const results = [
    await attempt(box.root, "write_file", {
      path: ".gitconfig.shared",
      content: "[core]\n\tfsmonitor = touch /tmp/pwned\n",
    }),
    await attempt(box.root, "write_file", { path: "extra.gitconfig", content: "[core]\n" }),
  ];
  expect(results).toEqual([
    { isError: true, asked: 0 },
    { isError: true, asked: 0 },
  ]);
  expect(box.read(".gitconfig.shared")).toBe("[user]\n\tname = x\n");
  expect(fs.existsSync(path.join(box.root, "extra.gitconfig"))).toBe(false);
});

test("a session opened in a bare repository: its config and hooks are never written", async () => {
  const bare = path.join(box.root, "bare.git");
  fs.mkdirSync(path.join(bare, "objects"), { recursive: true });
  fs.mkdirSync(path.join(bare, "hooks"));
  fs.writeFileSync(path.join(bare, "HEAD"), "ref: refs/heads/main\n");
  fs.writeFileSync(path.join(bare, "config"), "[core]\n\tbare = true\n");
  const results = [
    await attempt(bare, "write_file", { path: "config", content: "[core]\n\tpager = evil\n" }),
    await attempt(bare, "write_file", { path: "hooks/pre-receive", content: "evil\n" }),
  ];
  expect(results).toEqual([
    { isError: true, asked: 0 },
    { isError: true, asked: 0 },
  ]);
  expect(fs.readFileSync(path.join(bare, "config"), "utf8")).toBe("[core]\n\tbare = true\n");
});
