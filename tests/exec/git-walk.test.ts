/**
 * The walk for `.git` entries over real trees: every name the kernel allows (bytes that are not
 * UTF-8, paths past PATH_MAX, depths past the descriptors it keeps), its limits, directories it
 * cannot list, and the listings it reuses.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DirCalls } from "../../src/exec/dir-calls.ts";
import {
  WorkspaceTooLargeError,
  WorkspaceUncheckableError,
  findGitEntries,
  foldsToGit,
  walkGitEntries,
} from "../../src/exec/git-entries.ts";
import type { GitEntryCache } from "../../src/exec/git-entries.ts";
import { loadDirCalls } from "../../src/exec/load-dir-calls.ts";
import { pathDirCalls } from "../../src/exec/path-calls.ts";
import { runIf } from "../support/gate.ts";
import { UNPRIVILEGED_ID, unprivilegedFixture } from "../support/unprivileged.ts";
import { LONG_NAME, deepChain, nonUtf8Dir } from "./byte-trees.ts";
import { tempDir } from "./helpers.ts";

const calls = await loadDirCalls();

/** The walk's entries as text, and what it could not check. */
function walk(workspace: string, more: Parameters<typeof walkGitEntries>[1] | object = {}) {
  const result = walkGitEntries(workspace, { calls, ...more });
  return { entries: result.entries.map((entry) => entry.path), unchecked: result.unchecked };
}

describe("the walk sees every name the kernel allows", () => {
  test("a directory whose name is not UTF-8 is entered, its repository shown with \\xNN", () => {
    using dir = tempDir();
    const odd = nonUtf8Dir(dir.path, [0xff, 0x5c, 0x61]);
    mkdirSync(Buffer.concat([odd, Buffer.from("/sub/.git")]), { recursive: true });
    const result = walkGitEntries(dir.path, { calls });
    expect(result.unchecked).toEqual([]);
    expect(result.entries.map(({ path, nameable }) => ({ path, nameable }))).toEqual([
      { path: join(dir.path, "\\xff\\x5ca", "sub", ".git"), nameable: false },
    ]);
    // Before a command such a repository cannot be bound read-only, so the command is refused.
    expect(() => findGitEntries(dir.path, { calls })).toThrow(WorkspaceUncheckableError);
  });

  test("a tree deeper than PATH_MAX is walked whole, and so with two descriptors", () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "top", ".git"), { recursive: true });
    const depth = deepChain(dir.path, 30, "x/.git");
    expect(depth).toBeGreaterThan(4096);
    const deep = join(dir.path, ...Array<string>(30).fill(LONG_NAME), "x", ".git");
    for (const openDirs of [undefined, 2]) {
      const result = walkGitEntries(dir.path, { calls, openDirs });
      const entries = result.entries.map(({ path, nameable }) => ({ path, nameable }));
      expect({ entries, unchecked: result.unchecked }).toEqual({
        // Too long to be named: it sorts first.
        entries: [
          { path: deep, nameable: false },
          { path: join(dir.path, "top", ".git"), nameable: true },
        ],
        unchecked: [],
      });
    }
  });

  test("links are never followed", () => {
    using dir = tempDir();
    using outside = tempDir();
    mkdirSync(join(outside.path, "repo", ".git"), { recursive: true });
    Bun.spawnSync(["ln", "-s", outside.path, join(dir.path, "link")]);
    expect(walk(dir.path)).toEqual({ entries: [], unchecked: [] });
  });
});

describe("a walk that cannot finish says what it did not check", () => {
  test("past its entry limit it stops, keeping what it found (sorted, so always the same)", () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "a", ".git"), { recursive: true });
    mkdirSync(join(dir.path, "z", "many"), { recursive: true });
    for (let i = 0; i < 20; i++) writeFileSync(join(dir.path, "z", "many", `f${i}`), "");
    mkdirSync(join(dir.path, "z", "many", "later", ".git"), { recursive: true });
    const result = walk(dir.path, { limits: { entries: 10, ms: 60_000 } });
    expect(result.entries).toEqual([join(dir.path, "a", ".git")]);
    expect(result.unchecked).toEqual([
      {
        kind: "limits",
        path: dir.path,
        reason: `the walk stopped at ${join(dir.path, "z", "many")}, past its limits (10 entries or 60000 ms)`,
      },
    ]);
    expect(() => findGitEntries(dir.path, { calls, limits: { entries: 10, ms: 60_000 } })).toThrow(
      WorkspaceTooLargeError,
    );
  });

  test("out of time, it stops after the listing it was in, keeping what that held", () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, ".git"));
    mkdirSync(join(dir.path, "b", ".git"), { recursive: true });
    // A deadline already passed: the walk stops at its first listing, whatever the clock says.
    const result = walk(dir.path, { limits: { entries: 1_000, ms: -1 } });
    expect(result.entries).toEqual([join(dir.path, ".git")]);
    expect(result.unchecked.map((part) => part.kind)).toEqual(["limits"]);
  });

  // Root reads every directory, so the case runs as an ordinary user, and only root can switch.
  runIf(
    process.getuid?.() === 0 && Bun.which("setpriv") !== null,
    test,
    "it needs root and setpriv (util-linux), to switch to an ordinary user",
  )(
    "a directory a command could change but dsh cannot list is unchecked, another's skipped",
    async () => {
      using walker = await unprivilegedFixture(
        join(import.meta.dir, "fixtures", "find-git-entries.ts"),
      );
      using dir = tempDir("dsh-walk-", "/var/tmp");
      const hidden = join(dir.path, "hidden");
      const closed = join(dir.path, "closed");
      const foreign = join(dir.path, "foreign");
      for (const path of [hidden, closed, foreign])
        mkdirSync(join(path, "repo", ".git"), { recursive: true });
      Bun.spawnSync(["chown", "-R", `${UNPRIVILEGED_ID}:${UNPRIVILEGED_ID}`, dir.path]);
      Bun.spawnSync(["chown", "-R", "0:0", foreign]);
      chmodSync(hidden, 0o300);
      // Not writable, but its owner (and so a command) can make it so again at any time.
      chmodSync(closed, 0o100);
      chmodSync(foreign, 0o711);
      const walkAs = () =>
        JSON.parse(
          Bun.spawnSync(walker.argv(dir.path), {
            cwd: walker.cwd,
            env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir.path },
          }).stdout.toString(),
        );
      expect(walkAs()).toEqual({ error: "WorkspaceUncheckableError" });
      chmodSync(hidden, 0o700);
      expect(walkAs()).toEqual({ error: "WorkspaceUncheckableError" });
      chmodSync(closed, 0o700);
      // Root's directory, which the user cannot list or write: no command can hide anything there.
      expect(walkAs()).toEqual({
        entries: [join(closed, "repo", ".git"), join(hidden, "repo", ".git")],
      });
    },
  );
});

describe("listings kept between walks", () => {
  /** The calls, counting how often each is made. */
  const counted = () => {
    const counts = { openDir: 0, list: 0 };
    const counting = {
      ...calls,
      openDir: (at: number, name: Uint8Array) => {
        counts.openDir++;
        return calls.openDir(at, name);
      },
      list: (fd: number, visit: Parameters<typeof calls.list>[1]) => {
        counts.list++;
        return calls.list(fd, visit);
      },
    };
    return { counts, calls: counting };
  };
  // Listings are kept once two seconds old: as if the tree were made a minute ago.
  const later = () => Date.now() + 60_000;

  test("an unchanged directory is not listed again, and one without subdirectories not opened", () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "a", "b", "c"), { recursive: true });
    const cache: GitEntryCache = new Map();
    const first = counted();
    walkGitEntries(dir.path, { calls: first.calls, cache, clock: later });
    const second = counted();
    const again = walkGitEntries(dir.path, { calls: second.calls, cache, clock: later });
    expect({ first: first.counts, second: second.counts, unchecked: again.unchecked }).toEqual({
      first: { openDir: 3, list: 4 },
      second: { openDir: 2, list: 0 },
      unchecked: [],
    });
  });

  test("a directory changed since the last walk is listed again", () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "a", "b"), { recursive: true });
    const cache: GitEntryCache = new Map();
    expect(walk(dir.path, { cache, clock: later }).entries).toEqual([]);
    expect(cache.size).toBe(3);
    mkdirSync(join(dir.path, "a", "b", ".git"));
    expect(walk(dir.path, { cache, clock: later }).entries).toEqual([
      join(dir.path, "a", "b", ".git"),
    ]);
  });
});

/**
 * A volume that looks names up without regard to case, and without HFS+'s ignorable code
 * points, as APFS and HFS+ do: the directory calls at their seam, each name looked up by its
 * folded form among the directory's entries. Listings keep the names as they were made.
 */
function foldingCalls(inner: DirCalls): DirCalls {
  const fold = (name: string) =>
    name.replace(/[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g, "").toLowerCase();
  const decoder = new TextDecoder();
  const onDisk = (at: number, name: Uint8Array): Uint8Array => {
    const wanted = fold(decoder.decode(name.subarray(0, -1)));
    let found: Uint8Array | undefined;
    inner.list(at, (bytes, start, end) => {
      if (found === undefined && fold(decoder.decode(bytes.subarray(start, end))) === wanted) {
        found = bytes.slice(start, end + 1);
      }
    });
    return found ?? name;
  };
  return {
    ...inner,
    openDir: (at, name) => inner.openDir(at, onDisk(at, name)),
    stat: (at, name) => inner.stat(at, name === undefined ? undefined : onDisk(at, name)),
  };
}

describe("a volume that folds case", () => {
  const folding = foldingCalls(pathDirCalls());

  test(".GIT, .Git and a .git with code points HFS+ ignores are git entries where lookups fold", () => {
    using dir = tempDir();
    for (const name of ["a/.GIT", "b/.Git", "c/.g\u200cit", "d/.gitx", "e/.GIT/.git"]) {
      mkdirSync(join(dir.path, name), { recursive: true });
    }
    const folded = walkGitEntries(dir.path, { calls: folding });
    expect(folded.entries.map((entry) => entry.path)).toEqual([
      join(dir.path, "a/.GIT"),
      join(dir.path, "b/.Git"),
      join(dir.path, "c/.g\u200cit"),
      join(dir.path, "e/.GIT"),
    ]);
    // Where lookups do not fold, .GIT is an ordinary directory, walked like any other.
    expect(walk(dir.path).entries).toEqual([join(dir.path, "e/.GIT/.git")]);
  });

  test("which names can be .git under folding", () => {
    const folds = (name: string) => {
      const bytes = new TextEncoder().encode(name);
      return foldsToGit(bytes, 0, bytes.length);
    };
    expect([".GIT", ".gIt", ".g\u200dit\ufeff", ".git", "\u200b.git"].map(folds)).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
    expect([".gi", ".gitt", "git", "..git", ".gıt"].map(folds)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
