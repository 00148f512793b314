/**
 * The sandbox backend the suites ask for: `DSH_SANDBOX` when set, else `auto`. Running
 * `DSH_SANDBOX=none bun test` is the suite on a machine without bubblewrap: every test that
 * needs a sandbox must then skip and say why, and nothing else may fail.
 */
import * as v from "valibot";
import { choiceSchema } from "../../src/settings/schema.ts";
import { SANDBOX } from "../../src/settings/table.ts";

export const TEST_SANDBOX = v.parse(choiceSchema(SANDBOX), process.env.DSH_SANDBOX || "auto");
