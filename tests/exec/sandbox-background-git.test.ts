/**
 * What a command still running (a background command) plants in the workspace is removed when
 * the next command starts there, not taken by that command's walk for what was there before
 * (its own check would then keep it, and the host's git would read it until the background
 * command ended). Where no command runs, a repository made outside dsh stays the user's.
 */
import { describe, expect } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { git } from "./git-support.ts";
import { makeRunner, run, tempDir } from "./helpers.ts";
import { bwrapOnly } from "./sandbox-support.ts";

const runner = makeRunner();
// Seatbelt refuses the creation itself: there is nothing to plant.
const bwrapTest = bwrapOnly("bwrap lets a command create a .git, then removes it");

/** Starts `command` in the background; resolves once its output holds `ready`. */
async function background(ws: string, command: string, ready: string) {
  const abort = new AbortController();
  const seen = Promise.withResolvers<void>();
  let output = "";
  const done = run(runner, ws, command, {
    background: true,
    signal: abort.signal,
    onOutput: (text) => {
      output += text;
      if (output.includes(ready)) seen.resolve();
    },
  });
  await Promise.race([seen.promise, done]);
  return {
    async [Symbol.asyncDispose]() {
      abort.abort();
      await done;
    },
  };
}

describe("a background command's repositories", () => {
  bwrapTest("one it planted goes before the next command, which is told", async () => {
    using root = tempDir("dsh-bg-git-", "/var/tmp");
    const ws = root.path;
    const planted = join(ws, "sub", ".git");
    await using _bg = await background(
      ws,
      "mkdir -p sub/.git/hooks && printf '#!/bin/sh\\n' > sub/.git/hooks/pre-commit && echo planted && sleep 1000",
      "planted\n",
    );
    expect(existsSync(join(planted, "hooks", "pre-commit"))).toBe(true);
    const next = await run(runner, ws, "ls -a sub");
    expect(next.output).toContain("a command still running here (a background command)");
    expect(next.output).toContain(`[dsh removed ${planted}`);
    expect(existsSync(planted)).toBe(false);
  });

  bwrapTest(
    "one planted from a project around the next command's, or inside it, goes too",
    async () => {
      using root = tempDir("dsh-bg-git-", "/var/tmp");
      const outer = root.path;
      const inner = join(outer, "pkg");
      await run(runner, outer, "mkdir pkg");
      // Running in the project around: it plants inside the package the next command runs in.
      const fromOuter = join(inner, "x", ".git");
      {
        await using _bg = await background(
          outer,
          "mkdir -p pkg/x/.git/hooks && echo planted && sleep 1000",
          "planted\n",
        );
        const next = await run(runner, inner, "ls -a x");
        expect(next.output).toContain(`[dsh removed ${fromOuter}`);
        expect(existsSync(fromOuter)).toBe(false);
      }
      // Running in the package: it plants there, and the next command runs in the project around.
      const fromInner = join(inner, "y", ".git");
      await using _bg = await background(
        inner,
        "mkdir -p y/.git/hooks && echo planted && sleep 1000",
        "planted\n",
      );
      const next = await run(runner, outer, "ls -a pkg/y");
      expect(next.output).toContain(`[dsh removed ${fromInner}`);
      expect(existsSync(fromInner)).toBe(false);
    },
  );

  bwrapTest("one the user made while none ran stays", async () => {
    using root = tempDir("dsh-bg-git-", "/var/tmp");
    const ws = root.path;
    // A command ran and ended; then the user made a repository, then a background command began.
    await run(runner, ws, "mkdir sub");
    git(join(ws, "sub"), ["init", "-q"]);
    await using _bg = await background(ws, "echo started && sleep 1000", "started\n");
    const next = await run(runner, ws, "ls -a sub");
    expect(next.output).toContain(".git");
    expect(next.output).not.toContain("[dsh removed");
    expect(existsSync(join(ws, "sub", ".git"))).toBe(true);
  });
});
