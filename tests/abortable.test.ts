import { describe, expect, test } from "bun:test";
import { ABORTED, sleep, untilAborted } from "../src/abortable.ts";

const HOUR_MS = 3_600_000;

describe("sleep", () => {
  test.concurrent("runs its time out and answers true", async () => {
    expect(await sleep(1, new AbortController().signal)).toBe(true);
  });

  test.concurrent("an abort ends an hour's wait at once and answers false", async () => {
    const stop = new AbortController();
    const waiting = sleep(HOUR_MS, stop.signal);
    stop.abort();
    expect(await waiting).toBe(false);
  });

  test.concurrent("a signal aborted already answers false without waiting", async () => {
    expect(await sleep(HOUR_MS, AbortSignal.abort())).toBe(false);
  });
});

describe("untilAborted", () => {
  test.concurrent("passes the work's value through", async () => {
    expect(await untilAborted(Promise.resolve(7), new AbortController().signal)).toBe(7);
  });

  test.concurrent("an abort answers ABORTED while the work never settles", async () => {
    const stop = new AbortController();
    const waiting = untilAborted(new Promise<number>(() => {}), stop.signal);
    stop.abort();
    expect(await waiting).toBe(ABORTED);
  });

  test.concurrent("a rejection after the abort is ignored", async () => {
    const work = Promise.withResolvers<number>();
    const waiting = untilAborted(work.promise, AbortSignal.abort());
    work.reject(new Error("late"));
    expect(await waiting).toBe(ABORTED);
  });

  test.concurrent("a rejection before the abort rejects", async () => {
    const failing = Promise.reject(new Error("refused"));
    await expect(untilAborted(failing, new AbortController().signal)).rejects.toThrow("refused");
  });
});
