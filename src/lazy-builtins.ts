/**
 * Builtins a start-up module needs only in some calls, linked at the first of them: a chunk
 * links every builtin its modules import at their top before any of its code runs, and
 * `node:fs` alone costs `dsh acp` more than a millisecond before its first message (what each
 * chunk links is fixed by tests/app/start-up-links.test.ts). `process.getBuiltinModule` is
 * synchronous, so the callers stay synchronous too.
 */
export function nodeFs(): typeof import("node:fs") {
  return process.getBuiltinModule("node:fs");
}

export function nodeOs(): typeof import("node:os") {
  return process.getBuiltinModule("node:os");
}
