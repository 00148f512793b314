/** At most `size` holders at once; the rest wait in order. A waiter whose signal aborts leaves. */
export interface Slots {
  /** Resolves with the slot's release, or undefined when `signal` aborted first. */
  take(signal: AbortSignal): Promise<(() => void) | undefined>;
}

export function createSlots(size: number): Slots {
  let held = 0;
  const waiting: (() => void)[] = [];
  // A slot given up goes straight to the first waiter, so no newcomer takes it in between.
  const release = () => {
    const next = waiting.shift();
    if (next === undefined) held--;
    else next();
  };
  return {
    async take(signal) {
      if (signal.aborted) return undefined;
      if (held < size) {
        held++;
        return once(release);
      }
      const { promise, resolve } = Promise.withResolvers<boolean>();
      const wake = () => resolve(true);
      const onAbort = () => {
        const index = waiting.indexOf(wake);
        if (index >= 0) waiting.splice(index, 1);
        resolve(false);
      };
      waiting.push(wake);
      signal.addEventListener("abort", onAbort, { once: true });
      const woken = await promise;
      signal.removeEventListener("abort", onAbort);
      return woken ? once(release) : undefined;
    },
  };
}

function once(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}
