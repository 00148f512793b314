import { expect, test } from "bun:test";
import { createWaiters } from "../../src/acp/waiters.ts";

test("with unbounded memory every released key stays released until forgotten", async () => {
  const calls = createWaiters<string>(Number.POSITIVE_INFINITY);
  for (let i = 0; i < 300; i++) calls.release(`c${i}`);
  await calls.wait("c10");
  expect(calls.released("c0")).toBe(true);
  calls.forget();
  expect(calls.released("c0")).toBe(false);
});

test("bounded memory drops the oldest released key", () => {
  const turns = createWaiters<string>(2);
  for (const key of ["a", "b", "c"]) turns.release(key);
  expect(["a", "b", "c"].map((key) => turns.released(key))).toEqual([false, true, true]);
});
