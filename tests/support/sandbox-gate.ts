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
import { type CaseFunction, runIf } from "./gate.ts";

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

// CI sets DSH_TEST_REQUIRE_SANDBOX=1, which fails instead (above).
const noBackend = `no working sandbox backend (${sandboxStatus.backend})`;
/** `run` when a backend works, otherwise a function registering each case skipped, with why. */
export function needsSandbox(run: CaseFunction): CaseFunction {
  return runIf(sandboxStatus.ok, run, noBackend);
}
/** `test.concurrent` when a backend works, otherwise each case skipped with the reason. */
export const sandboxTest = needsSandbox(test.concurrent);
/** As `sandboxTest`, for cases that must not run alongside others. */
export const sandboxSerialTest = needsSandbox(test);
