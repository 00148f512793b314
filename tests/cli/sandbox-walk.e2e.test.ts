/**
 * The check after each sandboxed command, through the compiled binary: `dsh exec` runs a
 * hostile model's commands in a real repository, and afterwards the user's git runs nothing
 * they planted, whatever names, depths or sizes they used; a walk that cannot finish fails
 * closed. Two sessions racing in one project: `tests/soak/walk-swap.test.ts`.
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GIT_ENV, git, initRepo, userRunsGit } from "../exec/git-support.ts";
import { type CliProject, type CliRig, type CliRun, startCliRig } from "../support/cli.ts";
import { textTurn, toolTurn } from "../support/model-server.ts";
import { bwrapOnlySerial } from "../support/sandbox-gate.ts";

// What dsh removes after a command; Seatbelt refuses to create these in the first place, and
// APFS keeps no name that is not UTF-8 (tests/macos).
const sandboxSerialTest = bwrapOnlySerial("the removals after a command are bubblewrap's");

let rig: CliRig;

beforeAll(async () => {
  rig = await startCliRig("dsh-walk");
});

afterAll(async () => {
  expect(rig.server.failures).toEqual([]);
  await rig[Symbol.asyncDispose]();
});

const G = "git -c user.name=m -c user.email=m@m";

/** The session log of a finished `dsh exec`. */
function sessionLog(project: CliProject, run: CliRun): string {
  const id = /session ([0-9a-f-]{36})/.exec(run.stderr)?.[1] ?? "";
  return readFileSync(join(project.home, "sessions", `${id}.jsonl`), "utf8");
}

/** One `bash` tool turn per command, then "Done.". */
function scriptCommands(commands: readonly string[]): void {
  rig.server.script(
    ...commands.map((command, i) =>
      toolTurn([{ id: `b${i}`, name: "bash", args: { command, timeout_ms: 600_000 } }]),
    ),
    textTurn("Done."),
  );
}

/** The `.git` entries under `dir`, as GNU find sees them (it walks past PATH_MAX). */
function gitEntriesUnder(dir: string): string[] {
  const found = Bun.spawnSync(["find", dir, "-name", ".git", "-prune", "-print"]);
  return found.stdout.toString().split("\n").filter(Boolean).sort();
}

/** A command that plants a repository at `dir` whose config runs `touch marker`, as a gitlink. */
function plantRepository(dir: string, marker: string): string {
  return [
    `${G} init -q ${dir}`,
    `${G} -C ${dir} commit -q --allow-empty -m x`,
    `git -C ${dir} config core.fsmonitor 'touch ${marker}'`,
    `${G} add ${dir}`,
  ].join(" && ");
}

describe("names and depths no string can hold", () => {
  sandboxSerialTest(
    "a repository under a directory whose name is not UTF-8 is removed",
    async () => {
      const project = rig.project("non-utf8");
      const marker = join(project.base, "PWNED");
      initRepo(project.cwd);
      // `$d` is the single byte 0xff.
      scriptCommands([
        `d=$(printf '\\377') && mkdir "$d" && ${plantRepository('"$d/sub"', marker)} && echo planted`,
      ]);
      const run = await rig.run(["exec", "set things up"], project);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "Done.\n" });
      expect(userRunsGit(project.cwd, [marker])).toEqual([]);
      expect(gitEntriesUnder(project.cwd)).toEqual([join(project.cwd, ".git")]);
      const log = sessionLog(project, run);
      expect(log).toContain("planted");
      expect(log).toContain(`[dsh removed ${project.cwd}/\\\\xff/sub/.git: `);
    },
  );

  sandboxSerialTest(
    "a path longer than PATH_MAX in the same command hides nothing, and the walk finishes",
    async () => {
      const project = rig.project("path-max");
      const marker = join(project.base, "PWNED");
      initRepo(project.cwd);
      const deep = [
        `n=$(printf 'd%.0s' $(seq 200))`,
        // git cannot work that deep, so the repository is made by hand.
        `(for _ in $(seq 25); do mkdir "$n" && cd "$n" || exit 1; done; mkdir -p deep/.git)`,
      ].join(" && ");
      scriptCommands([`${plantRepository("sub", marker)} && ${deep} && echo planted`, "echo next"]);
      const run = await rig.run(["exec", "set things up"], project);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "Done.\n" });
      expect(userRunsGit(project.cwd, [marker])).toEqual([]);
      expect(gitEntriesUnder(project.cwd)).toEqual([join(project.cwd, ".git")]);
      const log = sessionLog(project, run);
      expect(log).toContain(`[dsh removed ${join(project.cwd, "sub", ".git")}: `);
      expect(log).toContain("/deep/.git: sandboxed commands may not create git repositories");
      // The next command runs: nothing was left unchecked.
      expect(log).toContain("next\\n");
    },
  );
});

describe("a walk that cannot finish fails closed", () => {
  sandboxSerialTest(
    "past [limits] walk_entries: what it found is removed, the user told, commands refused",
    async () => {
      const project = rig.project("walk-limit", "[limits]\nwalk_entries = 100\n");
      const marker = join(project.base, "PWNED");
      initRepo(project.cwd);
      // The walk's order is sorted by name: `a` is checked before `z` stops it.
      const bulk = "mkdir -p z/many && (cd z/many && seq 300 | xargs touch)";
      scriptCommands([`${plantRepository("a", marker)} && ${bulk} && echo planted`, "echo next"]);
      const run = await rig.run(["exec", "set things up"], project);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "Done.\n" });
      expect(userRunsGit(project.cwd, [marker])).toEqual([]);
      expect(gitEntriesUnder(project.cwd)).toEqual([join(project.cwd, ".git")]);
      expect(run.stderr).toContain(
        `dsh could not check all of ${project.cwd} for git repositories a sandboxed command ` +
          "may have created",
      );
      expect(run.stderr).toContain("Run no git there until you have looked for .git entries");
      const log = sessionLog(project, run);
      expect(log).toContain(`[dsh removed ${join(project.cwd, "a", ".git")}: `);
      expect(log).toContain("[dsh could not check all of the workspace");
      // The next command is refused, saying how to recover.
      expect(log).not.toContain("next\\n");
      expect(log).toContain(`-name .git), remove them, then start dsh again`);
    },
  );
});

describe("sequencer state waits for the user's git", () => {
  sandboxSerialTest(
    "a rebase a command leaves waiting with an exec line is removed, and the user told",
    async () => {
      const project = rig.project("sequencer-new");
      const marker = join(project.base, "PWNED");
      initRepo(project.cwd);
      const editor = `printf '#!/bin/sh\\nprintf "break\\\\nexec touch ${marker}\\\\n" > "$1"\\n' > /tmp/ed && chmod +x /tmp/ed`;
      scriptCommands([
        `${editor} && GIT_SEQUENCE_EDITOR=/tmp/ed ${G} rebase -i HEAD; cat .git/rebase-merge/git-rebase-todo`,
      ]);
      const run = await rig.run(["exec", "set things up"], project);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: "Done.\n" });
      git(project.cwd, ["rebase", "--continue"], false);
      expect(userRunsGit(project.cwd, [marker])).toEqual([]);
      const state = join(project.cwd, ".git", "rebase-merge");
      expect(existsSync(state)).toBe(false);
      const log = sessionLog(project, run);
      expect(log).toContain(`exec touch ${marker}`);
      expect(log).toContain(`[dsh removed ${state}: sandboxed commands may not leave a rebase`);
      expect(run.stderr).toContain(
        "a sandboxed command left a rebase, cherry-pick or revert in progress",
      );
    },
  );

  sandboxSerialTest("an am or a cherry-pick sequence a command leaves is removed", async () => {
    const project = rig.project("sequencer-other");
    initRepo(project.cwd);
    scriptCommands(["mkdir .git/rebase-apply .git/sequencer && echo made"]);
    const run = await rig.run(["exec", "set things up"], project);
    expect(run.code).toBe(0);
    const left = ["rebase-apply", "sequencer"].filter((name) =>
      existsSync(join(project.cwd, ".git", name)),
    );
    expect(left).toEqual([]);
  });

  sandboxSerialTest("the user's own rebase in progress cannot be given an exec line", async () => {
    const project = rig.project("sequencer-own");
    const marker = join(project.base, "PWNED");
    initRepo(project.cwd);
    writeFileSync(join(project.cwd, "more"), "more\n");
    git(project.cwd, ["add", "more"]);
    git(project.cwd, ["commit", "-qm", "more"]);
    const editor = join(project.base, "editor.sh");
    writeFileSync(editor, '#!/bin/sh\nsed -i "1i break" "$1"\n', { mode: 0o755 });
    const started = Bun.spawnSync(["git", "-C", project.cwd, "rebase", "-i", "HEAD~1"], {
      env: { ...GIT_ENV, GIT_SEQUENCE_EDITOR: editor },
    });
    expect(started.exitCode).toBe(0);
    const todo = join(project.cwd, ".git", "rebase-merge", "git-rebase-todo");
    const before = readFileSync(todo, "utf8");
    scriptCommands([`echo 'exec touch ${marker}' >> .git/rebase-merge/git-rebase-todo; echo end`]);
    const run = await rig.run(["exec", "set things up"], project);
    expect(run.code).toBe(0);
    expect(readFileSync(todo, "utf8")).toBe(before);
    git(project.cwd, ["rebase", "--continue"]);
    expect(existsSync(marker)).toBe(false);
    expect(sessionLog(project, run)).toContain("Read-only file system");
  });
});
