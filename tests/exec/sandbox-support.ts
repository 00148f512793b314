/**
 * The real sandbox for the security suites: probed once per file. A machine without a working
 * backend skips these suites and prints why; CI must have one (.ci/run installs bubblewrap).
 */
import { test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { makeRunner } from "./helpers.ts";

const probe = makeRunner();
export const sandboxStatus = await probe.sandbox();
await probe[Symbol.asyncDispose]();

if (!sandboxStatus.ok) {
  console.warn(
    `SKIPPING sandbox security cases: no working sandbox backend (${sandboxStatus.backend}): ` +
      `${sandboxStatus.reason}; fix: ${sandboxStatus.fix}`,
  );
}

/** `test.concurrent` when a backend works, otherwise a skip (the reason is printed above). */
export const sandboxTest = sandboxStatus.ok ? test.concurrent : test.skip;

/** A host path a failed sandbox would create; `leftovers()` removes any and reports them. */
export function hostMarkers(): { path(dir: string): string; leftovers(): string[] } {
  const made: string[] = [];
  return {
    path(dir) {
      const path = `${dir}/dsh_t_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
      made.push(path);
      return path;
    },
    leftovers() {
      const found = made.filter((path) => existsSync(path));
      for (const path of found) rmSync(path, { force: true });
      return found;
    },
  };
}
