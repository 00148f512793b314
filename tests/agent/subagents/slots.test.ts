import { describe, expect, test } from "bun:test";
import { createSlots } from "../../../src/agent/subagents/slots.ts";

/** Whether `promise` has settled once every pending promise reaction has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  // A macrotask runs only after the whole microtask queue has drained.
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe("subagent slots (max_subagents)", () => {
  test("at most the size hold one; the next waits for a release, in order", async () => {
    const slots = createSlots(2);
    const signal = new AbortController().signal;
    const first = await slots.take(signal);
    const second = await slots.take(signal);
    const third = slots.take(signal);
    const fourth = slots.take(signal);
    expect(await settled(third)).toBe(false);
    first?.();
    expect(await settled(third)).toBe(true);
    expect(await settled(fourth)).toBe(false);
    // A release called twice frees one slot only.
    first?.();
    expect(await settled(fourth)).toBe(false);
    second?.();
    expect(typeof (await fourth)).toBe("function");
  });

  test("a waiter whose signal aborts leaves the queue with no slot", async () => {
    const slots = createSlots(1);
    const held = await slots.take(new AbortController().signal);
    const abort = new AbortController();
    const waiting = slots.take(abort.signal);
    const next = slots.take(new AbortController().signal);
    abort.abort();
    expect(await waiting).toBeUndefined();
    held?.();
    expect(typeof (await next)).toBe("function");
    const aborted = AbortSignal.abort();
    expect(await slots.take(aborted)).toBeUndefined();
  });
});
