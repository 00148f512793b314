/**
 * The real sandbox for the security suites: probed once per file. A machine without a working
 * backend skips these suites and prints why; CI must have one (.ci/run installs bubblewrap and
 * sets DSH_TEST_REQUIRE_SANDBOX=1, which turns the skip into a failure).
 */
import { test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { makeRunner } from "./helpers.ts";

const probe = makeRunner();
export const sandboxStatus = await probe.sandbox();
await probe[Symbol.asyncDispose]();

/** CI sets this: there, a machine without a working sandbox is a failure, never a skip. */
const required = process.env.DSH_TEST_REQUIRE_SANDBOX === "1";

if (!sandboxStatus.ok && required) {
  throw new Error(
    `DSH_TEST_REQUIRE_SANDBOX=1 but no sandbox backend works (${sandboxStatus.backend}): ` +
      `${sandboxStatus.reason}; fix: ${sandboxStatus.fix}`,
  );
}
if (!sandboxStatus.ok) {
  console.warn(
    `SKIPPING sandbox security cases: no working sandbox backend (${sandboxStatus.backend}): ` +
      `${sandboxStatus.reason}; fix: ${sandboxStatus.fix}`,
  );
}

/** `test.concurrent` when a backend works, otherwise a skip (the reason is printed above). */
// Skip reason: these cases run real commands under a real sandbox; without a working backend
// there is nothing to test. CI sets DSH_TEST_REQUIRE_SANDBOX=1, which fails instead (above).
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
