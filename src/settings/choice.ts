/**
 * A setting whose value is one of a fixed list. The declaration is plain data with no
 * dependencies, so any layer (and start-up, before any schema exists) may read it; schemas,
 * types, editor options, help text and error messages are derived from it where they are used.
 */

/** One choice setting: its values in display order, and what it is called in messages. */
export interface Choice<T extends string> {
  /** The setting's name in messages and `/status` ("effort"). */
  readonly name: string;
  /** Every value, in the order they are offered; a valibot `picklist` takes it as is. */
  readonly values: readonly [T, ...T[]];
  /** The value when nothing sets one. */
  readonly default: T;
  /** Whether `value` is one of `values` (exact, case-sensitive). */
  has(value: unknown): value is T;
  /**
   * The error text for a value that is not one of `values`, naming them all:
   * `unknown effort extreme (off, low, high, max)`. `shown` is the value as it should appear
   * (quoted, shortened); `what` names where it came from, the setting's name by default.
   */
  unknown(shown: string, what?: string): string;
}

/** The values a `Choice` declaration allows, as a type. */
export type ChoiceValue<C> = C extends Choice<infer T> ? T : never;

/**
 * Declares a choice setting.
 * @param name What the setting is called in messages.
 * @param values Every value, in display order.
 * @param fallback The value when nothing sets one; one of `values`.
 * @returns The declaration, with its membership test and error text.
 */
export function defineChoice<const T extends string>(
  name: string,
  values: readonly [T, ...T[]],
  fallback: NoInfer<T>,
): Choice<T> {
  const allowed: readonly string[] = values;
  return {
    name,
    values,
    default: fallback,
    has: (value: unknown): value is T => typeof value === "string" && allowed.includes(value),
    unknown: (shown, what = name) => `unknown ${what} ${shown} (${values.join(", ")})`,
  };
}
