/**
 * Whether the real sandbox works here, probed once per test file. A machine without a working
 * backend (or `DSH_SANDBOX=none`) skips every test that needs one and prints why; CI must have
 * one (.ci/run installs bubblewrap and sets DSH_TEST_REQUIRE_SANDBOX=1, which turns the skip
 * into a failure).
 */
import { test } from "bun:test";
import { createCommandRunner } from "../../src/exec/runner.ts";
import { silentLogger } from "../../src/log.ts";
import { TEST_SANDBOX } from "./sandbox-choice.ts";

const probe = createCommandRunner({
  env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  sandbox: TEST_SANDBOX,
  home: "/nonexistent-home",
  stateDir: "/nonexistent-state",
  logger: silentLogger,
});
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
    `SKIPPING sandboxed-command cases: no working sandbox backend (${sandboxStatus.backend}): ` +
      `${sandboxStatus.reason}; fix: ${sandboxStatus.fix}`,
  );
}

// Skip reason: these cases run real commands under a real sandbox; without a working backend
// there is nothing to test. CI sets DSH_TEST_REQUIRE_SANDBOX=1, which fails instead (above).
/** `test.concurrent` when a backend works, otherwise a skip (the reason is printed above). */
export const sandboxTest = sandboxStatus.ok ? test.concurrent : test.skip;
// Skip reason: as for `sandboxTest`, for cases that must not run alongside others.
/** `test` when a backend works, otherwise a skip (the reason is printed above). */
export const sandboxSerialTest = sandboxStatus.ok ? test : test.skip;
/** For `describe.skipIf`: no backend works here (the reason is printed above). */
export const noSandbox = !sandboxStatus.ok;
