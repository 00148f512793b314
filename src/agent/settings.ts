/** Validation of a settings change against the catalog, the knob schemas and the settings table. */
import * as v from "valibot";
import { InvalidInputError, quoted } from "../errors.ts";
import { ApprovalPolicy, SandboxMode } from "../permission/knobs.ts";
import type { ModelInfo } from "../llm/types.ts";
import { EFFORT } from "../settings/table.ts";
import type { SessionSettings } from "./types.ts";

/** Longest model id taken; real ids are far shorter. */
const MAX_MODEL_ID = 200;
const MODEL_ID = new RegExp(`^[^\\s\\p{Cc}]{1,${MAX_MODEL_ID}}$`, "u");

/**
 * Returns the change if every field is valid; InvalidInputError naming the bad field otherwise.
 * A model id the catalog does not know is used as-is (like `--model` and `DSH_MODEL`), with
 * generic settings; only a malformed one (empty, with whitespace, too long) is refused.
 */
export function validateSettingsChange(
  change: Partial<SessionSettings>,
  catalog: { models(): readonly ModelInfo[] },
): Partial<SessionSettings> {
  const { model } = change;
  const known = model !== undefined && catalog.models().some((m) => m.id === model);
  if (model !== undefined && !known && !MODEL_ID.test(model)) {
    throw new InvalidInputError(
      `malformed model id: ${JSON.stringify(model.slice(0, MAX_MODEL_ID))}`,
      {
        model: model.slice(0, MAX_MODEL_ID),
      },
    );
  }
  if (change.effort !== undefined && !EFFORT.has(change.effort)) {
    const shown = quoted(String(change.effort));
    throw new InvalidInputError(EFFORT.unknown(shown), { effort: shown });
  }
  if (change.knobs !== undefined) {
    if (!v.is(SandboxMode, change.knobs.sandboxMode)) {
      throw new InvalidInputError(`unknown sandbox mode: ${String(change.knobs.sandboxMode)}`);
    }
    if (!v.is(ApprovalPolicy, change.knobs.approvalPolicy)) {
      throw new InvalidInputError(
        `unknown approval policy: ${String(change.knobs.approvalPolicy)}`,
      );
    }
  }
  return change;
}
