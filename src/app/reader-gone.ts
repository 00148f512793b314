/**
 * Noticing, without writing, that nobody reads a file descriptor any more: a pipe whose read end
 * was closed reports POLLERR to poll(2), a socket whose peer closed reports POLLHUP. Bun has no
 * API for that, so poll(2) is called from libc through `bun:ffi`, loaded at the first check
 * (never on the start-up path). Files, terminals in use and `/dev/null` report neither.
 */
import { libcNames } from "../libc.ts";

/** How often an idle descriptor is checked. */
export const READER_CHECK_MS = 1_000;

const POLLERR = 0x8;
const POLLHUP = 0x10;
/** `struct pollfd` is `{ int fd; short events; short revents; }` on Linux and macOS. */
const POLLFD_BYTES = 8;
/** `revents` as an index into the struct's shorts. */
const REVENTS = 3;

/** Reports whether the descriptor's reader is gone. */
type ReaderCheck = () => boolean;

/**
 * Resolves once `fd` has no reader left, checked every `intervalMs`. Never resolves where
 * poll(2) is not reachable (no `bun:ffi`, no libc); stops checking when `signal` aborts.
 * @param fd The descriptor written to (1 for stdout).
 * @param signal Ends the watch.
 * @param intervalMs Time between checks.
 */
export function readerGone(
  fd: number,
  signal: AbortSignal,
  intervalMs: number = READER_CHECK_MS,
): Promise<void> {
  const gone = Promise.withResolvers<void>();
  let check: Promise<ReaderCheck | undefined> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async () => {
    check ??= loadReaderCheck(fd);
    const hasNoReader = await check;
    if (hasNoReader === undefined || signal.aborted) return;
    if (hasNoReader()) gone.resolve();
    else schedule();
  };
  const schedule = () => {
    timer = setTimeout(() => void tick(), intervalMs);
    timer.unref();
  };
  if (!signal.aborted) {
    signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
    schedule();
  }
  return gone.promise;
}

async function loadReaderCheck(fd: number): Promise<ReaderCheck | undefined> {
  try {
    const { dlopen, FFIType, ptr } = await import("bun:ffi");
    const symbols = {
      poll: { args: [FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
    } as const;
    for (const name of libcNames()) {
      const libc = opened(() => dlopen(name, symbols));
      if (libc === undefined) continue;
      const struct = new ArrayBuffer(POLLFD_BYTES);
      new Int32Array(struct)[0] = fd;
      const shorts = new Int16Array(struct);
      const pointer = ptr(shorts);
      return () => {
        // events 0: POLLERR and POLLHUP are reported whatever is asked for.
        shorts[REVENTS] = 0;
        if (libc.symbols.poll(pointer, 1, 0) !== 1) return false;
        return ((shorts[REVENTS] ?? 0) & (POLLERR | POLLHUP)) !== 0;
      };
    }
  } catch {
    // No bun:ffi in this build of Bun.
  }
  return undefined;
}

function opened<T>(open: () => T): T | undefined {
  try {
    return open();
  } catch {
    return undefined;
  }
}
