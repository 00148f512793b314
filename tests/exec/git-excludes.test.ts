import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { excludesEnv, placeholderExcludes, sandboxExcludes } from "../../src/exec/git-excludes.ts";
import { initRepo } from "./git-support.ts";
import { tempDir } from "./helpers.ts";

test("the excludes keep the user's own file first, then one anchored pattern per placeholder", () => {
  using dir = tempDir();
  const home = join(dir.path, "home");
  mkdirSync(join(home, ".config", "git"), { recursive: true });
  writeFileSync(join(home, ".config", "git", "ignore"), "*.swp\n.DS_Store");
  const repo = join(dir.path, "repo");
  initRepo(repo);
  const pkg = join(repo, "pkg [x]");
  mkdirSync(pkg);
  const text = placeholderExcludes(
    pkg,
    [
      { path: join(pkg, ".vscode"), type: "dir" },
      { path: join(pkg, ".npmrc"), type: "file" },
    ],
    { home },
  );
  expect(text).toBe(
    "*.swp\n.DS_Store\n# dsh: placeholders of protected project configuration\n" +
      "/pkg \\[x\\]/.vscode/\n/pkg \\[x\\]/.npmrc\n",
  );
});

test("core.excludesFile from the user's config wins over the default, ~ expanded", () => {
  using dir = tempDir();
  const home = join(dir.path, "home");
  mkdirSync(home);
  writeFileSync(join(home, ".gitconfig"), "[core]\n\texcludesFile = ~/my-ignores\n");
  writeFileSync(join(home, "my-ignores"), "build/\n");
  const ws = join(dir.path, "ws");
  mkdirSync(ws);
  expect(placeholderExcludes(ws, [{ path: join(ws, ".envrc"), type: "file" }], { home })).toBe(
    "build/\n# dsh: placeholders of protected project configuration\n/.envrc\n",
  );
});

test("the variables come after any GIT_CONFIG_* pairs the command already has", () => {
  const config = [
    ["core.excludesFile", "/tmp/x"],
    ["includeIf.gitdir:/r/.git.path", "/tmp/y"],
  ] as const;
  expect(excludesEnv({}, config.slice(0, 1))).toEqual({
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "core.excludesFile",
    GIT_CONFIG_VALUE_0: "/tmp/x",
  });
  expect(excludesEnv({ GIT_CONFIG_COUNT: "2" }, config)).toEqual({
    GIT_CONFIG_COUNT: "4",
    GIT_CONFIG_KEY_2: "core.excludesFile",
    GIT_CONFIG_VALUE_2: "/tmp/x",
    GIT_CONFIG_KEY_3: "includeIf.gitdir:/r/.git.path",
    GIT_CONFIG_VALUE_3: "/tmp/y",
  });
});

test("each added repository gets its own excludes, chosen by its git directory", () => {
  using dir = tempDir();
  const home = join(dir.path, "home");
  mkdirSync(home);
  const cwd = join(dir.path, "cwd");
  mkdirSync(cwd);
  const repo = join(dir.path, "re*po");
  initRepo(repo);
  const pkg = join(repo, "pkg");
  mkdirSync(pkg);
  const other = join(dir.path, "other");
  initRepo(other);
  const excludes = sandboxExcludes(
    [
      { root: cwd, placeholders: [{ path: join(cwd, ".envrc"), type: "file" }] },
      { root: pkg, placeholders: [{ path: join(pkg, ".vscode"), type: "dir" }] },
      { root: other, placeholders: [] },
    ],
    { home },
  );
  const header = "# dsh: placeholders of protected project configuration\n";
  expect(excludes).toEqual({
    files: [
      { text: `${header}/.envrc\n`, dest: "/tmp/.dsh-git-excludes" },
      { text: `${header}/pkg/.vscode/\n`, dest: "/tmp/.dsh-git-excludes-1" },
      {
        text: "[core]\n\texcludesFile = /tmp/.dsh-git-excludes-1\n",
        dest: "/tmp/.dsh-git-config-1",
      },
    ],
    config: [
      ["core.excludesFile", "/tmp/.dsh-git-excludes"],
      [`includeIf.gitdir:${join(dir.path, "re\\*po", ".git")}.path`, "/tmp/.dsh-git-config-1"],
    ],
  });
  expect(sandboxExcludes([{ root: cwd, placeholders: [] }], { home })).toBeUndefined();
});
