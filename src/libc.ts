/**
 * libc through `bun:ffi`, for the few system calls Bun has no API for (poll(2), flock(2)).
 * Loaded on first use, never on the start-up path: `bun:ffi` is imported lazily.
 */
import type * as Ffi from "bun:ffi";

/** An opened libc with the asked-for symbols, and the FFI module it came from. */
export interface Libc<Fns extends Ffi.Symbols> {
  readonly symbols: Ffi.ConvertFns<Fns>;
  readonly ffi: typeof Ffi;
}

/**
 * Opens libc (glibc's name, then musl's for the linux-musl builds, or macOS's) with the
 * symbols `declare` returns. Undefined where there is no `bun:ffi` or no such libc; never
 * throws.
 */
export async function openLibc<Fns extends Ffi.Symbols>(
  declare: (types: typeof Ffi.FFIType) => Fns,
): Promise<Libc<Fns> | undefined> {
  try {
    const ffi = await import("bun:ffi");
    const symbols = declare(ffi.FFIType);
    for (const name of libcNames()) {
      try {
        return { symbols: ffi.dlopen(name, symbols).symbols, ffi };
      } catch {
        // Not this libc; try the next name.
      }
    }
  } catch {
    // No bun:ffi in this build of Bun.
  }
  return undefined;
}

/**
 * The names `dlopen` finds libc under on this platform, most likely first: glibc's, then
 * musl's (the linux-musl builds), or macOS's. The process has it loaded already, so opening it
 * costs no disk access.
 */
export function libcNames(): string[] {
  if (process.platform === "darwin") return ["libc.dylib"];
  const musl = process.arch === "arm64" ? "aarch64" : "x86_64";
  return ["libc.so.6", `libc.musl-${musl}.so.1`];
}
