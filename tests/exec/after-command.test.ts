/**
 * The check after a command fails closed: what the walk found is removed even when it could not
 * check the whole workspace, the user is told, and the workspace is unsafe from then on.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkAfterCommand } from "../../src/exec/after-command.ts";
import { loadDirCalls } from "../../src/exec/load-dir-calls.ts";
import type { Logger } from "../../src/log.ts";
import { nonUtf8Dir } from "./byte-trees.ts";
import { tempDir } from "./helpers.ts";

const calls = await loadDirCalls();
const nothingBefore = { guards: [], gitEntries: [] };

/** A logger that keeps each line as `LEVEL message`. */
function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { lines, debug: at("DEBUG"), info: at("INFO"), warn: at("WARN"), error: at("ERROR") };
}

describe("a walk that cannot finish", () => {
  test("past its entry limit: what it found goes, the user is told, the workspace is unsafe", () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "a", ".git"), { recursive: true });
    mkdirSync(join(dir.path, "z", "many"), { recursive: true });
    for (let i = 0; i < 20; i++) writeFileSync(join(dir.path, "z", "many", `f${i}`), "");
    const logger = recorder();
    const limits = { entries: 10, ms: 60_000 };
    const after = checkAfterCommand(dir.path, nothingBefore, logger, { calls, limits });
    expect({
      left: existsSync(join(dir.path, "a", ".git")),
      unsafe: after.unsafe,
      notes: after.notes,
      told: logger.lines,
    }).toEqual({
      left: false,
      unsafe: [dir.path],
      notes: [
        expect.stringMatching(/^\[dsh removed .*\/a\/\.git: sandboxed/),
        expect.stringMatching(/^\[dsh could not check all of the workspace/),
      ],
      told: [
        expect.stringMatching(/^ERROR dsh could not check all of \S+ for git.* Run no git there/),
      ],
    });
  });

  test("out of time: the same, with what its first listing held removed", () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, ".git"));
    const after = checkAfterCommand(dir.path, nothingBefore, recorder(), {
      calls,
      limits: { entries: 1_000, ms: -1 },
    });
    expect({ unsafe: after.unsafe, left: existsSync(join(dir.path, ".git")) }).toEqual({
      unsafe: [dir.path],
      left: false,
    });
  });
});

describe("what it removes", () => {
  test("a repository under a name that is not UTF-8", () => {
    using dir = tempDir();
    const odd = nonUtf8Dir(dir.path, [0xff]);
    mkdirSync(Buffer.concat([odd, Buffer.from("/sub/.git")]), { recursive: true });
    const after = checkAfterCommand(dir.path, nothingBefore, recorder(), { calls });
    expect(after).toEqual({
      notes: [
        `[dsh removed ${dir.path}/\\xff/sub/.git: sandboxed commands may not create git ` +
          "repositories (git would run commands its config names on the user's next git " +
          "call); ask the user to do it]",
      ],
      unsafe: [],
    });
    expect(existsSync(Buffer.concat([odd, Buffer.from("/sub")]))).toBe(true);
    expect(existsSync(Buffer.concat([odd, Buffer.from("/sub/.git")]))).toBe(false);
  });

  test("a rebase a command left in progress goes, and the user is told", () => {
    using dir = tempDir();
    const state = join(dir.path, ".git", "rebase-merge");
    mkdirSync(state, { recursive: true });
    writeFileSync(join(state, "git-rebase-todo"), "exec touch /tmp/x\n");
    const logger = recorder();
    const guards = [{ type: "forbid" as const, path: state }];
    const after = checkAfterCommand(
      dir.path,
      { guards, gitEntries: [join(dir.path, ".git")] },
      logger,
      { calls },
    );
    expect({ left: existsSync(state), unsafe: after.unsafe }).toEqual({ left: false, unsafe: [] });
    expect(after.notes[0]).toStartWith(
      `[dsh removed ${state}: sandboxed commands may not leave a rebase`,
    );
    expect(logger.lines).toEqual([
      "WARN a sandboxed command left a rebase, cherry-pick or revert in progress, and dsh " +
        "removed its state (its todo list would run on your next git rebase --continue); HEAD " +
        `stays where the command left it: ${state}`,
    ]);
  });
});
