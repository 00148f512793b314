/** The valibot schema of a choice setting, derived from its declaration. */
import * as v from "valibot";
import type { Choice } from "./choice.ts";

/**
 * A picklist of the setting's values whose issue names them all, in the words the setting's
 * other errors use: `unknown effort "extreme" (off, low, high, max)`.
 * @param choice The declaration.
 * @returns A new schema; call it where the enclosing schema is built (on first use).
 */
export function choiceSchema<T extends string>(
  choice: Choice<T>,
): v.PicklistSchema<readonly [T, ...T[]], (issue: v.PicklistIssue) => string> {
  return v.picklist(choice.values, (issue) => choice.unknown(issue.received));
}
