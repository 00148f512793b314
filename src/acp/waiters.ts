/**
 * Keyed one-shot latches: `wait(key)` resolves once `release(key)` ran, whether before or
 * after the wait. Remembers only the most recent released keys, which is all a session needs
 * (the turn that just ended, the calls of the running turn).
 */
export interface Waiters<K> {
  /** Resolves when `key` is (or was recently) released, on `wakeAll`/`close`, or on abort. */
  wait(key: K, signal?: AbortSignal): Promise<void>;
  /** Whether `key` was released recently. */
  released(key: K): boolean;
  release(key: K): void;
  /** Wakes every current waiter (what they wait for will not come). */
  wakeAll(): void;
  /** Forgets every released key (a later `wait` for one waits again). */
  forget(): void;
  /** Wakes every waiter now and every later `wait` (the source is gone). */
  close(): void;
}

/** Creates a latch map keeping the last `memory` released keys. */
export function createWaiters<K>(memory = 256): Waiters<K> {
  const done = new Set<K>();
  const pending = new Map<K, (() => void)[]>();
  let closed = false;
  return {
    wait(key, signal) {
      if (closed || done.has(key) || signal?.aborted === true) return Promise.resolve();
      const { promise, resolve } = Promise.withResolvers<void>();
      const wake = () => {
        signal?.removeEventListener("abort", wake);
        resolve();
      };
      signal?.addEventListener("abort", wake, { once: true });
      pending.set(key, [...(pending.get(key) ?? []), wake]);
      return promise;
    },
    released: (key) => closed || done.has(key),
    release(key) {
      done.add(key);
      if (done.size > memory) {
        const oldest = done.values().next();
        if (oldest.done !== true) done.delete(oldest.value);
      }
      for (const wake of pending.get(key) ?? []) wake();
      pending.delete(key);
    },
    forget() {
      done.clear();
    },
    wakeAll() {
      const wakes = [...pending.values()].flat();
      pending.clear();
      for (const wake of wakes) wake();
    },
    close() {
      closed = true;
      this.wakeAll();
    },
  };
}
