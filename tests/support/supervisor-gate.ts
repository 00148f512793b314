/**
 * Whether the supervisor chain works here (`src/exec/supervisor.ts`: setpriv with
 * `--pdeathsig`, sh and timeout), checked once per test file. Without it commands are spawned
 * directly: one can outlive a SIGKILLed dsh, joins no cgroup, and dsh warns of both at start.
 * Every case that needs the chain skips and says why; CI must have it
 * (`DSH_TEST_REQUIRE_SANDBOX=1`, which requires the sandbox, turns the skip into a failure).
 */
import { locateSupervisor } from "../../src/exec/supervisor.ts";
import { type CaseFunction, runIf } from "./gate.ts";

export const supervisorWorks = locateSupervisor(process.platform) !== undefined;

const REASON = "the supervisor chain needs Linux with setpriv (util-linux) and timeout (coreutils)";

if (!supervisorWorks && process.env.DSH_TEST_REQUIRE_SANDBOX === "1") {
  throw new Error(`DSH_TEST_REQUIRE_SANDBOX=1 but ${REASON}, and it does not work here`);
}

/** `run` where the chain works, otherwise a function registering each case skipped, with why. */
export function needsSupervisor(run: CaseFunction): CaseFunction {
  return runIf(supervisorWorks, run, REASON);
}
