import { expect, test } from "bun:test";
import * as v from "valibot";
import { lazySchema } from "../src/lazy-schema.ts";

test("a lazy schema is built at its first parse, once, and reports what the built one reports", () => {
  let builds = 0;
  const Point = lazySchema(() => {
    builds++;
    return v.strictObject({ x: v.number(), tags: v.optional(v.array(v.string())) });
  });
  const Plain = v.strictObject({ x: v.number(), tags: v.optional(v.array(v.string())) });
  expect(builds).toBe(0);

  const inputs = [{ x: 1 }, { x: 1, tags: ["a"] }, { x: "1" }, { x: 1, tags: [2] }, { y: 1 }];
  const results = inputs.map((input) => v.safeParse(Point, input));
  expect(builds).toBe(1);
  const issues = (result: ReturnType<typeof v.safeParse>) =>
    result.issues?.map((issue) => [v.getDotPath(issue), issue.message]);
  expect(results.map((r) => [r.success, r.output, issues(r)])).toEqual(
    inputs.map((input) => {
      const plain = v.safeParse(Plain, input);
      return [plain.success, plain.output, issues(plain)];
    }),
  );
  // Nested in another schema, it is still the one built.
  expect(v.parse(v.array(Point), [{ x: 2 }])).toEqual([{ x: 2 }]);
  expect(builds).toBe(1);
});
