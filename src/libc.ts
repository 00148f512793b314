/** Where the C library is, for the few calls Bun has no API for (reached through `bun:ffi`). */

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
