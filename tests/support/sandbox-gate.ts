/**
 * Whether the real sandbox works here, probed once per test file. A machine without a working
 * backend (or `DSH_SANDBOX=none`) skips every test that needs one and prints why; CI must have
 * one (.ci/run installs bubblewrap and sets DSH_TEST_REQUIRE_SANDBOX=1, which turns the skip
 * into a failure).
 */
import { expect, test } from "bun:test";
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

/** Where the case needs bubblewrap itself (mounts, namespaces, /proc): skipped elsewhere. */
export function bwrapOnly(why: string) {
  return runIf(sandboxStatus.ok && sandboxStatus.backend === "bwrap", test.concurrent, why);
}

/** As `bwrapOnly`, for cases that must not run alongside others. */
export function bwrapOnlySerial(why: string) {
  return runIf(sandboxStatus.ok && sandboxStatus.backend === "bwrap", test, why);
}

/** Where the case needs macOS's Seatbelt: skipped elsewhere. */
export function seatbeltOnly(why: string) {
  return runIf(sandboxStatus.ok && sandboxStatus.backend === "seatbelt", test.concurrent, why);
}

/** Whether the sandbox in use is macOS's. */
export const underSeatbelt = sandboxStatus.backend === "seatbelt";

/**
 * What a write the sandbox refuses prints, whichever backend refused it: bwrap's read-only
 * binds say EROFS, its pinned mount points EBUSY, Seatbelt says EPERM.
 */
export const DENIED = /Read-only file system|Operation not permitted|Device or resource busy/;

/** How many refusals `output` reports. */
export function denials(output: string): number {
  return output.match(new RegExp(DENIED.source, "g"))?.length ?? 0;
}

/**
 * A protected path the command tried to create: bwrap lets it be made and removes it after,
 * saying so in the output; Seatbelt refuses the creation itself, and nothing is removed.
 * Whether it is gone from the host is the caller's own assertion.
 */
export function expectRefusedOrRemoved(output: string, path: string): void {
  if (underSeatbelt) {
    expect(output).toMatch(/Operation not permitted/);
    expect(output).not.toContain(`[dsh removed ${path}`);
  } else {
    expect(output).toContain(`[dsh removed ${path}`);
  }
}
