/**
 * The walk for `.git` entries with its directories watched (`dir-watch.ts`): an unchanged tree
 * costs no look at any directory below the workspace, and every way a command can bring a
 * `.git` entry into a watched tree is still found: made in place deep down, a `gitdir:` file,
 * renamed into place from outside, a directory swapped for a link or for another directory,
 * a watched directory moved away and back, and changes the kernel could not queue.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { walksByWorkspace } from "../../src/exec/backend-parts.ts";
import type { DirCalls } from "../../src/exec/dir-calls.ts";
import { loadDirWatcher } from "../../src/exec/dir-watch.ts";
import { walkGitEntries } from "../../src/exec/git-entries.ts";
import { loadDirCalls } from "../../src/exec/load-dir-calls.ts";
import { runIf } from "../support/gate.ts";
import { tempDir } from "./helpers.ts";

const calls = await loadDirCalls();
const watcher = await loadDirWatcher();
const watched = runIf(watcher !== undefined, test, "no inotify on this system");

/** The calls, counting every one made below the workspace's root. */
function counting(): { calls: DirCalls; count: () => number } {
  let made = 0;
  const wrap =
    <A extends unknown[], R>(call: (...args: A) => R) =>
    (...args: A): R => {
      made++;
      return call(...args);
    };
  return {
    calls: {
      ...calls,
      openDir: wrap(calls.openDir),
      stat: wrap(calls.stat),
      list: wrap(calls.list),
    },
    count: () => made,
  };
}

/** A tree of 3 × 3 × 3 directories with a file in each leaf, and one repository at `a/b/c`. */
function tree(root: string): void {
  for (const a of ["a", "b", "c"])
    for (const b of ["a", "b", "c"])
      for (const c of ["a", "b", "c"]) {
        mkdirSync(join(root, a, b, c), { recursive: true });
        writeFileSync(join(root, a, b, c, "file"), "");
      }
  mkdirSync(join(root, "a", "b", "c", ".git"));
}

/** One workspace's walks with the watch, the way the backend makes them. */
function watchedWalks(workspace: string, walkCalls: DirCalls = calls) {
  const walks = walksByWorkspace(walkCalls, undefined, watcher);
  const walk = () => {
    const result = walkGitEntries(workspace, walks.of(workspace));
    expect(result.unchecked).toEqual([]);
    return result.entries.map((entry) => entry.path).sort();
  };
  return { walk, [Symbol.dispose]: () => walks.close() };
}

describe("a watched workspace", () => {
  watched("walked again unchanged: only its root is looked at, its repository still found", () => {
    using dir = tempDir();
    tree(dir.path);
    const counted = counting();
    using walks = watchedWalks(dir.path, counted.calls);
    const first = walks.walk();
    const before = counted.count();
    expect(walks.walk()).toEqual(first);
    expect(walks.walk()).toEqual([join(dir.path, "a", "b", "c", ".git")]);
    // The root's own stat for the listing it reuses, nothing below.
    expect((counted.count() - before) / 2).toBeLessThanOrEqual(1);
  });

  watched("taken whole from the last walk, a walk still sees each later change", () => {
    using dir = tempDir();
    tree(dir.path);
    const counted = counting();
    using walks = watchedWalks(dir.path, counted.calls);
    const repo = join(dir.path, "a", "b", "c", ".git");
    expect(walks.walk()).toEqual([repo]);
    const before = counted.count();
    expect(walks.walk()).toEqual([repo]);
    expect(walks.walk()).toEqual([repo]);
    // Taken whole: no directory below the root is looked at.
    expect(counted.count() - before).toBeLessThanOrEqual(2);
    mkdirSync(join(dir.path, "c", "c", "a", ".git"));
    expect(walks.walk()).toEqual([repo, join(dir.path, "c", "c", "a", ".git")]);
    rmSync(join(dir.path, "c", "c", "a", ".git"), { recursive: true });
    writeFileSync(join(dir.path, ".git"), "gitdir: /elsewhere\n");
    expect(walks.walk()).toEqual([join(dir.path, ".git"), repo]);
    expect(walks.walk()).toEqual([join(dir.path, ".git"), repo]);
    rmSync(join(dir.path, ".git"));
    renameSync(join(dir.path, "a", "b"), join(dir.path, "b", "moved"));
    expect(walks.walk()).toEqual([join(dir.path, "b", "moved", "c", ".git")]);
  });

  watched("a .git directory or gitdir: file made deep inside is found", () => {
    using dir = tempDir();
    tree(dir.path);
    using walks = watchedWalks(dir.path);
    walks.walk();
    mkdirSync(join(dir.path, "c", "c", "b", ".git"));
    writeFileSync(join(dir.path, "b", "a", "a", ".git"), "gitdir: /elsewhere\n");
    expect(walks.walk()).toEqual([
      join(dir.path, "a", "b", "c", ".git"),
      join(dir.path, "b", "a", "a", ".git"),
      join(dir.path, "c", "c", "b", ".git"),
    ]);
  });

  watched("a repository renamed into place from outside, and one moved within, are found", () => {
    using dir = tempDir();
    using outside = tempDir();
    tree(dir.path);
    using walks = watchedWalks(dir.path);
    walks.walk();
    mkdirSync(join(outside.path, "planted", "deeper", ".git"), { recursive: true });
    renameSync(join(outside.path, "planted"), join(dir.path, "b", "c", "a", "planted"));
    // The watched directory that holds the known repository, moved under another name.
    renameSync(join(dir.path, "a", "b"), join(dir.path, "c", "moved"));
    expect(walks.walk()).toEqual([
      join(dir.path, "b", "c", "a", "planted", "deeper", ".git"),
      join(dir.path, "c", "moved", "c", ".git"),
    ]);
  });

  watched(
    "a watched directory swapped for a link is not followed; one swapped in is walked",
    () => {
      using dir = tempDir();
      using outside = tempDir();
      tree(dir.path);
      using walks = watchedWalks(dir.path);
      walks.walk();
      mkdirSync(join(outside.path, "repo", ".git"), { recursive: true });
      rmSync(join(dir.path, "b", "b"), { recursive: true });
      symlinkSync(join(outside.path, "repo"), join(dir.path, "b", "b"));
      // rename(2) over an empty watched directory: the name stays, the directory is another.
      mkdirSync(join(outside.path, "swap", "x", ".git"), { recursive: true });
      rmSync(join(dir.path, "c", "a", "a", "file"));
      renameSync(join(outside.path, "swap"), join(dir.path, "c", "a", "a"));
      expect(walks.walk()).toEqual([
        join(dir.path, "a", "b", "c", ".git"),
        join(dir.path, "c", "a", "a", "x", ".git"),
      ]);
    },
  );

  watched("a watched directory moved away, given a repository and moved back is walked", () => {
    using dir = tempDir();
    using outside = tempDir();
    tree(dir.path);
    using walks = watchedWalks(dir.path);
    walks.walk();
    renameSync(join(dir.path, "c", "b"), join(outside.path, "away"));
    mkdirSync(join(outside.path, "away", "a", ".git"));
    renameSync(join(outside.path, "away"), join(dir.path, "c", "b"));
    expect(walks.walk()).toContain(join(dir.path, "c", "b", "a", ".git"));
  });

  watched(
    "changes past what the kernel queues: every directory is looked at again",
    () => {
      using dir = tempDir();
      tree(dir.path);
      using walks = watchedWalks(dir.path);
      walks.walk();
      const queued = Number(readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8"));
      // Each rename is two events in the directory's queue, one call.
      const [here, there] = [
        join(dir.path, "a", "a", "a", "file"),
        join(dir.path, "a", "a", "a", "f"),
      ];
      for (let i = 0; i <= queued / 2; i++) {
        if (i % 2 === 0) renameSync(here, there);
        else renameSync(there, here);
      }
      // Made once the queue is full: its own event is lost.
      mkdirSync(join(dir.path, "c", "c", "c", ".git"));
      expect(walks.walk()).toEqual([
        join(dir.path, "a", "b", "c", ".git"),
        join(dir.path, "c", "c", "c", ".git"),
      ]);
      // And the walk after that is watched again.
      mkdirSync(join(dir.path, "b", "b", "b", ".git"));
      expect(walks.walk()).toContain(join(dir.path, "b", "b", "b", ".git"));
      // Tens of thousands of calls: seconds on a loaded machine.
    },
    60_000,
  );
});
