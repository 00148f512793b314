/** Validation of a settings change against the catalog and the knob schemas. */
import * as v from "valibot";
import { InvalidInputError } from "../errors.ts";
import { ApprovalPolicy, SandboxMode } from "../permission/knobs.ts";
import type { ModelInfo } from "../llm/types.ts";
import type { SessionSettings } from "./types.ts";

const EffortSchema = v.picklist(["off", "low", "high", "max"]);

/** Returns the change if every field is valid; InvalidInputError naming the bad field otherwise. */
export function validateSettingsChange(
  change: Partial<SessionSettings>,
  catalog: { models(): readonly ModelInfo[] },
): Partial<SessionSettings> {
  if (change.model !== undefined && !catalog.models().some((model) => model.id === change.model)) {
    throw new InvalidInputError(`unknown model: ${change.model}`, { model: change.model });
  }
  if (change.effort !== undefined && !v.is(EffortSchema, change.effort)) {
    throw new InvalidInputError(`unknown effort: ${String(change.effort)}`);
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
