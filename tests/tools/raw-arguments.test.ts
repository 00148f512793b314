import { expect, test } from "bun:test";
import { parseRawInput, parseToolArguments } from "../../src/tools/raw-arguments.ts";

test.each([
  ['{"path":"a.ts"}', { ok: true, value: { path: "a.ts" } }, { path: "a.ts" }],
  ["", { ok: true, value: {} }, {}],
  ["  \n", { ok: true, value: {} }, {}],
  ["[1]", { ok: true, value: [1] }, [1]],
])("tool arguments %p parse", (raw, parsed, shown) => {
  expect([parseToolArguments(raw), parseRawInput(raw)]).toEqual([parsed, shown]);
});

test("arguments that are not JSON are an error for the registry and stay text for display", () => {
  const parsed = parseToolArguments('{"path":');
  expect([parsed.ok, parseRawInput('{"path":')]).toEqual([false, '{"path":']);
  expect(parsed.ok === false && parsed.error.length > 0).toBe(true);
});
