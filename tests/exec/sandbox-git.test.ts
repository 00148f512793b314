/**
 * After anything a sandboxed command did, the user's own git (status, diff, log, commit,
 * fetch) in the project never runs a command the model wrote. Each route git offers is
 * attacked from a real sandbox over real repositories made by git; then git runs on the host
 * and the planted command's marker must not exist.
 */
import { describe, expect } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { SANDBOX_GIT as G, git, initRepo, userRunsGit } from "./git-support.ts";
import { makeRunner, run, tempDir } from "./helpers.ts";
import {
  DENIED,
  denials,
  expectRefusedOrRemoved,
  sandboxTest,
  underSeatbelt,
} from "./sandbox-support.ts";

const runner = makeRunner();

/** A project under /var/tmp (not /tmp, which the sandbox replaces) and a marker outside it. */
function project() {
  const root = tempDir("dsh-git-", "/var/tmp");
  const ws = join(root.path, "ws");
  const marker = join(root.path, "PWNED");
  return { root, ws, marker, [Symbol.dispose]: () => root[Symbol.dispose]() };
}

describe("the five routes to a command git runs", () => {
  sandboxTest(
    "a nested repository registered as a gitlink is removed after the command",
    async () => {
      using p = project();
      initRepo(p.ws);
      const script = [
        `${G} init -q sub && ${G} -C sub commit -q --allow-empty -m x`,
        `git -C sub config core.fsmonitor 'touch ${p.marker}'`,
        `${G} add sub && echo staged`,
        `mkdir -p deep/er && ${G} init -q deep/er/x && git -C deep/er/x config core.pager 'touch ${p.marker}'`,
      ].join(" && ");
      const result = await run(runner, p.ws, script);
      // Seatbelt refuses the first git init; bwrap lets both be made and removes them after.
      if (underSeatbelt) expectRefusedOrRemoved(result.output, join(p.ws, "sub", ".git"));
      else {
        expect(result.output).toContain("staged\n");
        expectRefusedOrRemoved(result.output, join(p.ws, "sub", ".git"));
        expectRefusedOrRemoved(result.output, join(p.ws, "deep", "er", "x", ".git"));
      }
      expect([
        existsSync(join(p.ws, "sub/.git")),
        existsSync(join(p.ws, "deep/er/x/.git")),
      ]).toEqual([false, false]);
      expect(userRunsGit(p.ws, [p.marker])).toEqual([]);
      git(join(p.ws, "deep/er/x"), ["log"], false);
      expect(existsSync(p.marker)).toBe(false);
    },
  );

  sandboxTest("a nested repository's included config and hooks path stay the user's", async () => {
    using p = project();
    initRepo(p.ws);
    const nested = join(p.ws, "vendor", "lib");
    initRepo(nested);
    writeFileSync(join(nested, "shared.gitconfig"), "[user]\n\tname = lib\n");
    mkdirSync(join(nested, ".githooks"));
    git(nested, ["config", "include.path", "../shared.gitconfig"]);
    git(nested, ["config", "core.hooksPath", ".githooks"]);
    const script = [
      `printf '[core]\\n\\tfsmonitor = touch ${p.marker}\\n' >> vendor/lib/shared.gitconfig`,
      `printf '#!/bin/sh\\ntouch ${p.marker}\\n' > vendor/lib/.githooks/pre-commit`,
      "echo end",
    ].join("; ");
    const result = await run(runner, p.ws, script);
    expect(denials(result.output)).toBe(2);
    expect(userRunsGit(nested, [p.marker])).toEqual([]);
  });

  sandboxTest(".git/modules cannot be created or filled when it did not exist", async () => {
    using p = project();
    initRepo(p.ws);
    const script = [
      "mkdir -p .git/modules/lib",
      `${G} init -q --separate-git-dir=.git/modules/lib lib`,
      `mkdir -p lib && printf 'gitdir: ../.git/modules/lib\\n' > lib/.git`,
      "echo end",
    ].join("; ");
    const result = await run(runner, p.ws, script);
    expect(result.output).toMatch(DENIED);
    if (underSeatbelt) expect(result.output).toEndWith("end\n");
    else
      expect(result.output).toEndWith(`[dsh removed ${join(p.ws, "lib", ".git")}: ${removedTail}`);
    expect(existsSync(join(p.ws, "lib", ".git"))).toBe(false);
    expect(readdirSync(join(p.ws, ".git/modules"))).toEqual([]);
    expect(userRunsGit(p.ws, [p.marker])).toEqual([]);
  });

  sandboxTest(
    "an existing submodule's lib/.git file can be neither rewritten nor replaced",
    async () => {
      using p = project();
      initRepo(join(p.root.path, "lib-src"));
      initRepo(p.ws);
      git(p.ws, ["submodule", "add", "-q", join(p.root.path, "lib-src"), "lib"]);
      git(p.ws, ["commit", "-qm", "lib"]);
      const pointer = readFileSync(join(p.ws, "lib/.git"), "utf8");
      const script = [
        `${G} init -q --bare evil.git && git --git-dir=evil.git config core.fsmonitor 'touch ${p.marker}'`,
        "printf 'gitdir: ../evil.git\\n' > lib/.git",
        "mv lib lib.orig",
        "rm -rf lib",
        `git --git-dir=.git/modules/lib config core.fsmonitor 'touch ${p.marker}'`,
        "echo end",
      ].join("; ");
      const result = await run(runner, p.ws, script);
      expect(denials(result.output)).toBeGreaterThanOrEqual(2);
      expect(readFileSync(join(p.ws, "lib/.git"), "utf8")).toBe(pointer);
      expect(existsSync(join(p.ws, "lib.orig"))).toBe(false);
      expect(userRunsGit(p.ws, [p.marker])).toEqual([]);
      git(join(p.ws, "lib"), ["status"]);
      expect(existsSync(p.marker)).toBe(false);
    },
  );

  sandboxTest("a linked worktree's commondir cannot be rewritten", async () => {
    using p = project();
    initRepo(p.ws);
    git(p.ws, ["worktree", "add", "-q", "wt"]);
    const commondir = join(p.ws, ".git/worktrees/wt/commondir");
    const before = readFileSync(commondir, "utf8");
    const script = [
      `${G} init -q --bare evil && git --git-dir=evil config core.fsmonitor 'touch ${p.marker}'`,
      `echo ../../../evil > ${commondir}`,
      "mv .git/worktrees .git/w2",
      "echo end",
    ].join("; ");
    const result = await run(runner, p.ws, script);
    expect(denials(result.output)).toBeGreaterThanOrEqual(2);
    expect(readFileSync(commondir, "utf8")).toBe(before);
    expect(userRunsGit(join(p.ws, "wt"), [p.marker])).toEqual([]);
  });

  sandboxTest(
    "a file .git/config includes cannot be edited, nor a missing one created",
    async () => {
      using p = project();
      initRepo(p.ws);
      writeFileSync(join(p.ws, ".gitconfig.shared"), "[user]\n\tname = shared\n");
      git(p.ws, ["config", "include.path", "../.gitconfig.shared"]);
      git(p.ws, ["config", "includeIf.onbranch:main.path", "../later.gitconfig"]);
      const plant = `printf '[core]\\n\\tfsmonitor = touch ${p.marker}\\n'`;
      const script = [
        `${plant} >> .gitconfig.shared`,
        "mv .gitconfig.shared moved",
        `${plant} > later.gitconfig`,
        "echo end",
      ].join("; ");
      const result = await run(runner, p.ws, script);
      expect(denials(result.output)).toBeGreaterThanOrEqual(2);
      expectRefusedOrRemoved(result.output, join(p.ws, "later.gitconfig"));
      expect(existsSync(join(p.ws, "later.gitconfig"))).toBe(false);
      expect(readFileSync(join(p.ws, ".gitconfig.shared"), "utf8")).toBe(
        "[user]\n\tname = shared\n",
      );
      expect(userRunsGit(p.ws, [p.marker])).toEqual([]);
    },
  );
});

describe("what dsh removes after a command", () => {
  sandboxTest(
    "a forbidden path reached through a planted link: the link goes, not its target",
    async () => {
      using p = project();
      initRepo(p.ws);
      git(p.ws, ["config", "include.path", "../cfg/shared.gitconfig"]);
      const outside = join(p.root.path, "outside");
      mkdirSync(outside);
      writeFileSync(join(outside, "shared.gitconfig"), "USER DATA\n");
      const result = await run(runner, p.ws, `ln -s ${outside} cfg && echo linked`);
      expect(result.output).toContain(`linked\n\n[dsh removed ${join(p.ws, "cfg")}: `);
      expect(existsSync(join(p.ws, "cfg"))).toBe(false);
      expect(readFileSync(join(outside, "shared.gitconfig"), "utf8")).toBe("USER DATA\n");
    },
  );
});

describe("the direct routes", () => {
  sandboxTest("config, hooks, commondir and config.worktree of .git stay the user's", async () => {
    using p = project();
    initRepo(p.ws);
    const hook = `printf '#!/bin/sh\\ntouch ${p.marker}\\n'`;
    const script = [
      `${G} commit -q --allow-empty -m inside && echo committed`,
      `git config core.fsmonitor 'touch ${p.marker}'`,
      `echo '[core] pager = touch ${p.marker}' >> .git/config`,
      `${hook} > .git/hooks/pre-commit`,
      "mkdir -p evil/hooks && echo ../evil > .git/commondir",
      `echo '[core] fsmonitor = touch ${p.marker}' > .git/config.worktree`,
      "echo end",
    ].join("; ");
    const result = await run(runner, p.ws, script);
    expect(result.output).toContain("committed\n");
    expectRefusedOrRemoved(result.output, join(p.ws, ".git/commondir"));
    expectRefusedOrRemoved(result.output, join(p.ws, ".git/config.worktree"));
    expect(existsSync(join(p.ws, ".git/commondir"))).toBe(false);
    expect(existsSync(join(p.ws, ".git/config.worktree"))).toBe(false);
    expect(existsSync(join(p.ws, ".git/hooks/pre-commit"))).toBe(false);
    expect(userRunsGit(p.ws, [p.marker])).toEqual([]);
  });

  sandboxTest("a session opened in a bare repository keeps its config and hooks", async () => {
    using p = project();
    mkdirSync(p.ws);
    git(p.ws, ["init", "-q", "--bare"]);
    const hook = `printf '#!/bin/sh\ntouch ${p.marker}\n'`;
    const script = [
      `${hook} > hooks/pre-receive`,
      `git config core.pager 'touch ${p.marker}'`,
      "mv hooks h2",
      "echo end",
    ].join("; ");
    const result = await run(runner, p.ws, script);
    expect(denials(result.output)).toBeGreaterThanOrEqual(2);
    expect(existsSync(join(p.ws, "h2"))).toBe(false);
    expect(existsSync(join(p.ws, "hooks/pre-receive"))).toBe(false);
    git(p.ws, ["log"], false);
    expect(existsSync(p.marker)).toBe(false);
  });

  sandboxTest("a repository made at the top of a plain directory is removed", async () => {
    using p = project();
    mkdirSync(p.ws);
    const script = `${G} init -q . && git config core.fsmonitor 'touch ${p.marker}' && echo made`;
    const result = await run(runner, p.ws, script);
    if (!underSeatbelt) expect(result.output).toContain("made\n");
    expectRefusedOrRemoved(result.output, join(p.ws, ".git"));
    expect(readdirSync(p.ws)).toEqual([]);
  });

  sandboxTest("husky v9: .husky/_ wrappers and the .husky/<hook> scripts they run", async () => {
    using p = project();
    initRepo(p.ws);
    mkdirSync(join(p.ws, ".husky/_"), { recursive: true });
    writeFileSync(
      join(p.ws, ".husky/_/pre-commit"),
      '#!/bin/sh\nexec sh "$(dirname "$0")/../pre-commit"\n',
    );
    chmodSync(join(p.ws, ".husky/_/pre-commit"), 0o755);
    writeFileSync(join(p.ws, ".husky/pre-commit"), "true\n");
    git(p.ws, ["config", "core.hooksPath", ".husky/_"]);
    const script = [
      `echo 'touch ${p.marker}' > .husky/pre-commit`,
      `echo 'touch ${p.marker}' > .husky/pre-push`,
      "mv .husky h2",
      "echo end",
    ].join("; ");
    const result = await run(runner, p.ws, script);
    expect(denials(result.output)).toBeGreaterThanOrEqual(3);
    expect(existsSync(join(p.ws, "h2"))).toBe(false);
    expect(readFileSync(join(p.ws, ".husky/pre-commit"), "utf8")).toBe("true\n");
    expect(userRunsGit(p.ws, [p.marker])).toEqual([]);
    expect(git(p.ws, ["log", "-1", "--format=%s"])).toBe("user\n");
  });

  sandboxTest(
    "a session in a subfolder (R/pkg, hooks in pkg/.husky) cannot write them",
    async () => {
      using p = project();
      initRepo(p.ws);
      const pkg = join(p.ws, "pkg");
      mkdirSync(join(pkg, ".husky"), { recursive: true });
      writeFileSync(join(pkg, ".husky/pre-commit"), "true\n");
      chmodSync(join(pkg, ".husky/pre-commit"), 0o755);
      git(p.ws, ["config", "core.hooksPath", "pkg/.husky"]);
      const result = await run(
        runner,
        pkg,
        `echo 'touch ${p.marker}' > .husky/pre-commit; echo end`,
      );
      expect(result.output).toMatch(DENIED);
      expect(userRunsGit(p.ws, [p.marker])).toEqual([]);
    },
  );
});

describe("no protected path is replaced through an ancestor (class 5)", () => {
  sandboxTest("a hooks directory below plain folders: mv tools tools.orig fails", async () => {
    using p = project();
    initRepo(p.ws);
    mkdirSync(join(p.ws, "tools/githooks"), { recursive: true });
    git(p.ws, ["config", "core.hooksPath", "tools/githooks"]);
    const hook = `printf '#!/bin/sh\\ntouch ${p.marker}\\n'`;
    const script = [
      "mv tools tools.orig",
      "rm -rf tools",
      `mkdir -p tools/githooks; ${hook} > tools/githooks/pre-commit; chmod +x tools/githooks/pre-commit`,
      "echo end",
    ].join("; ");
    const result = await run(runner, p.ws, script);
    expect(result.output).toMatch(DENIED);
    expect(existsSync(join(p.ws, "tools.orig"))).toBe(false);
    expect(userRunsGit(p.ws, [p.marker])).toEqual([]);
  });

  sandboxTest("a git directory kept inside the workspace (--separate-git-dir)", async () => {
    using p = project();
    mkdirSync(join(p.ws, "inner"), { recursive: true });
    git(p.ws, ["init", "-q", "--separate-git-dir=inner/gd", "."]);
    git(p.ws, ["commit", "-q", "--allow-empty", "-m", "first"]);
    const hook = `printf '#!/bin/sh\\ntouch ${p.marker}\\n'`;
    const script = [
      "mv inner inner2",
      "mv inner/gd inner/gd2",
      `${hook} > inner/gd/hooks/pre-commit`,
      `echo '[core] fsmonitor = touch ${p.marker}' >> inner/gd/config`,
      `${G} commit -q --allow-empty -m inside && echo committed`,
      "echo end",
    ].join("; ");
    const result = await run(runner, p.ws, script);
    if (!underSeatbelt) expect(result.output.match(/Device or resource busy/g)?.length).toBe(2);
    expect(denials(result.output)).toBeGreaterThanOrEqual(2);
    expect(result.output).toContain("committed\n");
    expect(existsSync(join(p.ws, "inner2"))).toBe(false);
    expect(userRunsGit(p.ws, [p.marker])).toEqual([]);
  });

  sandboxTest("dsh's config directory and DSH_HOME inside the workspace", async () => {
    using p = project();
    const config = join(p.ws, "dotfiles/.config/dsh");
    const state = join(p.ws, "state");
    mkdirSync(config, { recursive: true });
    mkdirSync(join(state, "sessions"), { recursive: true });
    writeFileSync(join(config, "config.toml"), 'permission = "workspace-write"\n');
    writeFileSync(join(state, "sessions/a.jsonl"), "log\n");
    const own = makeRunner({ stateDir: state, protectedDirs: [config] });
    const script = [
      "mv dotfiles d2",
      "mv dotfiles/.config c2",
      "mv dotfiles/.config/dsh x",
      `echo 'permission = "danger-full-access"' > dotfiles/.config/dsh/config.toml`,
      "echo planted > dotfiles/.config/dsh/AGENTS.md",
      "mv state s2",
      "echo forged > state/sessions/a.jsonl",
      "echo end",
    ].join("; ");
    const result = await run(own, p.ws, script);
    // A mount point moves nowhere: rename fails (EBUSY, or EXDEV, after which mv copies and
    // cannot remove the original); the state directory is hidden from commands besides.
    // Seatbelt refuses each rename and write (EPERM).
    if (!underSeatbelt) expect(result.output.match(/Device or resource busy/g)?.length).toBe(2);
    expect(denials(result.output)).toBeGreaterThanOrEqual(2);
    expect(result.output).toEndWith("end\n");
    expect([
      readFileSync(join(config, "config.toml"), "utf8"),
      readFileSync(join(state, "sessions/a.jsonl"), "utf8"),
      readdirSync(config),
      existsSync(join(p.ws, "d2")) || existsSync(join(p.ws, "s2")),
    ]).toEqual(['permission = "workspace-write"\n', "log\n", ["config.toml"], false]);
  });
});

const removedTail =
  "sandboxed commands may not create git repositories (git would run commands its config " +
  "names on the user's next git call); ask the user to do it]";
