import { describe, expect, test } from "bun:test";
import { createStallWatch } from "../../src/llm/stall.ts";
import type { LlmEvent } from "../../src/llm/types.ts";

/** Runs `wait` over `pending`, collecting its notices, until it settles or the limit is reached. */
async function watchUntilEnd<T>(
  wait: AsyncGenerator<LlmEvent, T>,
  limit: Promise<void>,
): Promise<{ notices: LlmEvent[]; end: "limit" | { value: T } }> {
  const notices: LlmEvent[] = [];
  const limited = limit.then(() => "limit" as const);
  for (;;) {
    const next = await Promise.race([wait.next(), limited]);
    if (next === "limit") return { notices, end: "limit" };
    if (next.done === true) return { notices, end: { value: next.value } };
    notices.push(next.value);
  }
}

describe("the stall watch of one try", () => {
  test.concurrent("a silent wait gets a notice at the first mark, then the limit", async () => {
    const limit = Promise.withResolvers<void>();
    // Taken before the watch starts its clock, so the time below can only be longer.
    const started = performance.now();
    const watch = createStallWatch("model.test", 400, limit.resolve);
    const { notices, end } = await watchUntilEnd(
      watch.wait(new Promise<never>(() => {})),
      limit.promise,
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(399);
    expect(end).toBe("limit");
    expect(notices).toEqual([
      expect.objectContaining({
        type: "notice",
        title: expect.stringMatching(/^Waiting for model\.test: nothing received for \d+ ms$/),
        description: "dsh gives up after 400 ms of silence (DSH_STREAM_TIMEOUT).",
      }),
    ]);
    watch.stop();
  });

  test.concurrent("a byte after a notice makes the next notice come at the first mark again", async () => {
    const limit = Promise.withResolvers<void>();
    // Notices at 200 ms of silence, then at 800 ms, which is the limit.
    const watch = createStallWatch("model.test", 800, limit.resolve);
    const first = Promise.withResolvers<string>();
    const waiting = watch.wait(first.promise);
    const notice = await waiting.next();
    expect(notice.done).toBe(false);
    watch.touch();
    first.resolve("byte");
    expect(await waiting.next()).toEqual({ done: true, value: "byte" });

    const touched = performance.now();
    const second = watch.wait(new Promise<never>(() => {}));
    const next = await Promise.race([second.next(), limit.promise.then(() => "limit" as const)]);
    expect(next).toMatchObject({ done: false, value: { type: "notice" } });
    expect(performance.now() - touched).toBeLessThan(800);
    watch.stop();
  });

  test.concurrent("bytes keep the try alive past the limit; a failed wait rethrows", async () => {
    let limited = false;
    // Notices at 250 ms of silence, then at 1000 ms, which is the limit.
    const watch = createStallWatch("model.test", 1000, () => {
      limited = true;
    });
    const never = new Promise<void>(() => {});
    const slowRead = (value: number) =>
      new Promise<number>((resolve) => setTimeout(resolve, 500, value));
    // Two reads of 500 ms each: 1000 ms in all, the whole limit, but never that long a silence.
    const first = await watchUntilEnd(watch.wait(slowRead(1)), never);
    watch.touch();
    const second = await watchUntilEnd(watch.wait(slowRead(2)), never);
    watch.touch();
    expect([first.end, second.end, first.notices.length, second.notices.length]).toEqual([
      { value: 1 },
      { value: 2 },
      1,
      1,
    ]);
    expect(limited).toBe(false);
    const failing = watch.wait(Promise.reject(new Error("reset")));
    await expect(failing.next()).rejects.toThrow("reset");
    watch.stop();
  });
});
