/**
 * Finding a repository and what its git reads, checked against git itself where git can say:
 * the same hooks directory `git rev-parse --git-path hooks` names, the same values
 * `git config --get` reads, the same repository root.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig, readConfigChain } from "../../src/permission/git-config.ts";
import { findRepository, gitControl } from "../../src/permission/git-repository.ts";
import { git, initRepo } from "../exec/git-support.ts";
import { tempDir } from "../exec/helpers.ts";

const user = { home: "/nonexistent-home" };

describe("git config as git reads it", () => {
  test("sections, subsections, quotes, escapes, comments and continuations", () => {
    const text = [
      "[core] # comment",
      '\thooksPath = "my hooks" ; trailing',
      "\tbare",
      '[includeIf "gitdir:~/work/"]',
      "\tpath = a\\",
      "b.conf",
      "[Remote.Origin]",
      '\turl = "x\\"y"  ',
    ].join("\n");
    expect(
      parseConfig(text, "f").map(({ section, subsection, key, value }) => [
        section,
        subsection,
        key,
        value,
      ]),
    ).toEqual([
      ["core", undefined, "hookspath", "my hooks"],
      ["core", undefined, "bare", true],
      ["includeif", "gitdir:~/work/", "path", "ab.conf"],
      ["remote", "origin", "url", 'x"y'],
    ]);
  });

  test("the values git itself reads from a config with includes", () => {
    using dir = tempDir();
    initRepo(dir.path);
    writeFileSync(join(dir.path, "inc.gitconfig"), '[core]\n\thooksPath = "from include"\n');
    git(dir.path, ["config", "include.path", "../inc.gitconfig"]);
    const chain = readConfigChain([join(dir.path, ".git", "config")], user.home);
    expect(chain.files).toEqual([
      join(dir.path, ".git", "config"),
      join(dir.path, "inc.gitconfig"),
    ]);
    const ours = chain.entries.filter((e) => e.key === "hookspath").map((e) => e.value);
    expect(ours).toEqual([git(dir.path, ["config", "--get", "core.hooksPath"]).trim()]);
  });
});

describe("the repository containing a directory", () => {
  test("is found from a subfolder, and its hooks directory is the one git names", () => {
    using dir = tempDir();
    initRepo(dir.path);
    mkdirSync(join(dir.path, "pkg", "deep"), { recursive: true });
    git(dir.path, ["config", "core.hooksPath", "pkg/hooks"]);
    const repo = findRepository(join(dir.path, "pkg", "deep"));
    expect(repo?.worktree).toBe(dir.path);
    const named = git(join(dir.path, "pkg"), [
      "rev-parse",
      "--path-format=absolute",
      "--git-path",
      "hooks",
    ]);
    expect(repo && gitControl(repo, user).hookDirs).toContain(named.trim());
  });

  test("a .git that leads nowhere is skipped, as git skips it", () => {
    using dir = tempDir();
    initRepo(dir.path);
    mkdirSync(join(dir.path, "sub", ".git"), { recursive: true });
    expect(findRepository(join(dir.path, "sub"))?.worktree).toBe(dir.path);
    expect(git(join(dir.path, "sub"), ["rev-parse", "--show-toplevel"]).trim()).toBe(dir.path);
  });

  test("a linked worktree's config comes from the common directory", () => {
    using dir = tempDir();
    initRepo(join(dir.path, "main"));
    git(join(dir.path, "main"), ["worktree", "add", "-q", "../wt"]);
    const repo = findRepository(join(dir.path, "wt"));
    expect(repo?.commonDir).toBe(join(dir.path, "main", ".git"));
    expect(repo && gitControl(repo, user).configFiles).toContain(
      join(dir.path, "main", ".git", "config"),
    );
  });
});
