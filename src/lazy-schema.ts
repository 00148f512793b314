/**
 * Schemas built on first use. A module on the start-up path that declares a large schema at
 * its top level pays for building it before the first message even when nothing is parsed;
 * wrapped here, the schema is a cheap placeholder until the first parse builds it, once.
 */
import * as v from "valibot";

type AnySchema = v.BaseSchema<unknown, unknown, v.BaseIssue<unknown>>;

/**
 * A schema that behaves as `build()`'s (same output type, same issues and paths) but is built
 * at its first parse, then reused.
 * @param build Returns the schema; called at most once.
 * @returns A valibot schema usable anywhere the built one is.
 */
export function lazySchema<const T extends AnySchema>(build: () => T): v.LazySchema<T> {
  let built: T | undefined;
  return v.lazy(() => {
    built ??= build();
    return built;
  });
}
