/**
 * The sandbox backend the suites ask for: `DSH_SANDBOX` when set, else `auto`. Running
 * `DSH_SANDBOX=none bun test` is the suite on a machine without bubblewrap: every test that
 * needs a sandbox must then skip and say why, and nothing else may fail.
 */
import * as v from "valibot";

const SandboxPreference = v.picklist(["auto", "bwrap", "seatbelt", "none"]);

export const TEST_SANDBOX = v.parse(SandboxPreference, process.env.DSH_SANDBOX || "auto");
