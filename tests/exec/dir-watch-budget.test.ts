/**
 * The workspace watches of one watcher (a backend's: one per dsh process) share the user's
 * inotify instances with every other program: together they hold at most an eighth of the
 * limit, and a workspace past that gets no watch (its walks go by change time) until another's
 * watch is closed.
 */
import { expect, test } from "bun:test";
import { closeSync, openSync, statSync } from "node:fs";
import { type DirWatch, instanceBudget, loadDirWatcher } from "../../src/exec/dir-watch.ts";
import { runIf } from "../support/gate.ts";
import { tempDir } from "./helpers.ts";

const watcher = await loadDirWatcher();
const watched = runIf(watcher !== undefined, test, "no inotify on this system");

watched("past the instance budget a workspace gets no watch, until one is closed", () => {
  const budget = instanceBudget();
  const dirs = Array.from({ length: budget + 1 }, () => tempDir());
  const fds = dirs.map((dir) => openSync(dir.path, "r"));
  const open: DirWatch[] = [];
  try {
    let refused = false;
    for (const [i, dir] of dirs.entries()) {
      const watch = watcher?.(fds[i] ?? -1, statSync(dir.path, { bigint: true }).dev);
      if (watch === undefined) {
        refused = true;
        break;
      }
      open.push(watch);
    }
    // Other programs' instances may leave fewer to take.
    expect(refused).toBe(true);
    expect(open.length).toBeLessThanOrEqual(budget);
    expect(open.length).toBeGreaterThan(0);
    open.pop()?.close();
    const again = watcher?.(fds[0] ?? -1, statSync(dirs[0]?.path ?? "/", { bigint: true }).dev);
    expect(again).toBeDefined();
    if (again !== undefined) open.push(again);
  } finally {
    for (const watch of open) watch.close();
    for (const fd of fds) closeSync(fd);
    for (const dir of dirs) dir[Symbol.dispose]();
  }
});
