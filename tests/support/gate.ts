/**
 * Cases that can only run where the machine has what they need (root, a sandbox backend, tmux,
 * the release archives). Where it does not, each case is still registered, as skipped, with the
 * reason in its name, so the report says what did not run and why.
 */
import { test } from "bun:test";

type CaseBody = NonNullable<Parameters<typeof test>[1]>;
type CaseOptions = Parameters<typeof test>[2];

/** Registers one case: `test`, `test.concurrent`, or what `runIf` returns. */
export type CaseFunction = (name: string, body: CaseBody, options?: CaseOptions) => void;

/**
 * `run` when `ready`; otherwise a function that registers each case skipped, named
 * `<name> [skipped: <reason>]`.
 */
export function runIf(ready: boolean, run: CaseFunction, reason: string): CaseFunction {
  // A skip without its reason would hide what did not run: every gate names one.
  if (reason.trim() === "") throw new Error("runIf needs the reason its cases may be skipped");
  if (ready) return run;
  // The one place cases are skipped: the reason the caller wrote goes into each case's name.
  const skipped = (name: string) => `${name} [skipped: ${reason}]`;
  // skip reason: `reason`, the caller's, checked non-empty above and written into the name.
  return (name, body, options) => test.skip(skipped(name), body, options);
}
