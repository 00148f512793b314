/**
 * What a closed session held is garbage once it is disposed, but the collector runs only when
 * allocation drives it, so a client that opens and closes sessions would see the process keep
 * what they held for long. A collection is asked for once the closes of a burst are done.
 */
let asked = false;

/** Collects garbage soon, once for however many calls come before it runs. */
export function collectSoon(): void {
  if (asked) return;
  asked = true;
  setTimeout(() => {
    asked = false;
    Bun.gc(true);
  }, 0);
}
