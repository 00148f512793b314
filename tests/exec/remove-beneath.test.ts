/**
 * dsh's host-side removal never reaches outside the workspace: a link on the way is what goes,
 * and a link swapped in at any moment of the removal (before each of its calls in turn, so
 * every interleaving of one swap is tried) redirects nothing.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { partsBelow } from "../../src/exec/byte-paths.ts";
import type { DirCalls } from "../../src/exec/dir-calls.ts";
import { loadDirCalls } from "../../src/exec/load-dir-calls.ts";
import { removeBeneath } from "../../src/exec/remove-beneath.ts";
import { deepChain } from "./byte-trees.ts";
import { tempDir } from "./helpers.ts";

const calls = await loadDirCalls();

/** A planted repository at `ws/a/b/.git` and its twin outside, at `outside/b/.git`. */
function lstatOrUndefined(path: string) {
  return lstatSync(path, { throwIfNoEntry: false });
}

function plant(root: string) {
  const ws = join(root, "ws");
  const outside = join(root, "outside");
  for (const base of [join(ws, "a"), outside]) {
    mkdirSync(join(base, "b", ".git", "objects", "x"), { recursive: true });
    writeFileSync(join(base, "b", ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(base, "b", ".git", "objects", "x", "y"), "object\n");
  }
  return { ws, outside, target: join(ws, "a", "b", ".git") };
}

/** `calls`, running `before(n)` ahead of the n-th call (from 0). */
function interleaved(before: (n: number) => void): DirCalls {
  let n = 0;
  const step = <T>(call: () => T): T => {
    before(n++);
    return call();
  };
  return {
    openPath: (path) => step(() => calls.openPath(path)),
    openDir: (at, name) => step(() => calls.openDir(at, name)),
    stat: (at, name) => step(() => calls.stat(at, name)),
    list: (fd, visit) => step(() => calls.list(fd, visit)),
    unlink: (at, name, directory) => step(() => calls.unlink(at, name, directory)),
    close: (fd) => step(() => calls.close(fd)),
  };
}

describe("removing what a command left", () => {
  test("a planted repository goes whole", () => {
    using dir = tempDir();
    const { ws, target } = plant(dir.path);
    expect(removeBeneath(calls, ws, partsBelow(ws, target))).toEqual({
      type: "removed",
      parts: partsBelow(ws, target),
    });
    expect(existsSync(join(ws, "a", "b"))).toBe(true);
    expect(existsSync(target)).toBe(false);
  });

  test("a link on the way is what goes, never what it points to", () => {
    using dir = tempDir();
    const { ws, outside, target } = plant(dir.path);
    renameSync(join(ws, "a"), join(ws, "a.moved"));
    symlinkSync(outside, join(ws, "a"));
    expect(removeBeneath(calls, ws, partsBelow(ws, target))).toEqual({
      type: "removed",
      parts: partsBelow(ws, join(ws, "a")),
    });
    expect([existsSync(join(ws, "a")), existsSync(join(outside, "b", ".git", "HEAD"))]).toEqual([
      false,
      true,
    ]);
  });

  test("a tree deeper than PATH_MAX goes whole, with two descriptors", () => {
    using dir = tempDir();
    const { ws, target } = plant(dir.path);
    deepChain(target, 30, "x/y");
    expect(removeBeneath(calls, ws, partsBelow(ws, target), 2).type).toBe("removed");
    expect(existsSync(target)).toBe(false);
  });

  test("nothing there is nothing to do", () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "a"));
    expect(
      removeBeneath(calls, dir.path, partsBelow(dir.path, join(dir.path, "a", "x", ".git"))),
    ).toEqual({ type: "absent" });
  });
});

describe("a link swapped in while the removal runs", () => {
  // Each directory a concurrent command could swap for a link to the same place outside.
  for (const swapped of ["a", "a/b", "a/b/.git", "a/b/.git/objects"]) {
    test(`${swapped}: before any one of the removal's calls, never reaches outside`, () => {
      const total = (() => {
        using dir = tempDir();
        const { ws, target } = plant(dir.path);
        let count = 0;
        removeBeneath(
          interleaved(() => count++),
          ws,
          partsBelow(ws, target),
        );
        return count;
      })();
      expect(total).toBeGreaterThan(10);
      const outcomes = new Set<string>();
      for (let at = 0; at <= total; at++) {
        using dir = tempDir();
        const { ws, outside, target } = plant(dir.path);
        const from = join(ws, swapped);
        const to = join(outside, swapped.slice("a".length));
        const swap = (n: number) => {
          if (n !== at || lstatOrUndefined(dirname(from)) === undefined) return;
          // What was there moves aside (if the removal has not taken it yet); a link takes its place.
          if (lstatOrUndefined(from) !== undefined) renameSync(from, `${from}.moved`);
          symlinkSync(to, from);
        };
        outcomes.add(removeBeneath(interleaved(swap), ws, partsBelow(ws, target)).type);
        expect({
          at,
          head: existsSync(join(outside, "b", ".git", "HEAD")),
          object: existsSync(join(outside, "b", ".git", "objects", "x", "y")),
        }).toEqual({ at, head: true, object: true });
      }
      // The swap at the start leaves the link to remove; one at the end, nothing to do.
      expect(outcomes.has("removed")).toBe(true);
    });
  }
});
