/**
 * Noticing, without writing, that nobody reads a file descriptor any more: a pipe whose read end
 * was closed reports POLLERR to poll(2), a socket whose peer closed reports POLLHUP. Bun has no
 * API for that, so poll(2) is called from libc through `bun:ffi`, loaded at the first check
 * (never on the start-up path). Files, terminals in use and `/dev/null` report neither.
 */
import { openLibc } from "../libc.ts";

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
  const libc = await openLibc((types) => ({
    poll: { args: [types.ptr, types.u64, types.i32], returns: types.i32 },
  }));
  if (libc === undefined) return undefined;
  const struct = new ArrayBuffer(POLLFD_BYTES);
  new Int32Array(struct)[0] = fd;
  const shorts = new Int16Array(struct);
  const pointer = libc.ffi.ptr(shorts);
  return () => {
    // events 0: POLLERR and POLLHUP are reported whatever is asked for.
    shorts[REVENTS] = 0;
    if (libc.symbols.poll(pointer, 1, 0) !== 1) return false;
    return ((shorts[REVENTS] ?? 0) & (POLLERR | POLLHUP)) !== 0;
  };
}
