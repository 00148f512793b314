/**
 * The calls grep's worker threads read files with on Linux: libc's `openat`, `read` and
 * `close` and the `fstat` system call through `bun:ffi`, on the descriptors of the batch's
 * directories. A file is then looked up by its name in the very directory the worker holds,
 * with no path for the kernel to walk again and no `/proc/self/fd` link to resolve: half the
 * cost of an open through Node's `fs`, which has no `openat`.
 *
 * `workerLibc` runs inside the worker from its own source text (see `file-searcher.ts`), so it
 * is self-contained: no imports, no module-level names. The `struct stat` offsets are the
 * kernel's for x86-64 and arm64, the architectures dsh is built for.
 */

/** What `workerLibc` gives: undefined where there is no `bun:ffi`, no libc or another arch. */
export type WorkerLibc = ReturnType<typeof workerLibc>;

/**
 * The calls, bound once per thread. `open` takes the name of an entry of the open directory
 * `dirFd`; `read` fills the thread's one buffer. None throws: a failure is a negative number.
 */
export function workerLibc(fs: typeof import("node:fs")) {
  if (process.platform !== "linux") return undefined;
  const arch =
    process.arch === "x64"
      ? { fstat: 5, modeAt: 24, nlinkAt: 16, nlinkWide: true }
      : process.arch === "arm64"
        ? { fstat: 80, modeAt: 16, nlinkAt: 20, nlinkWide: false }
        : undefined;
  if (arch === undefined) return undefined;
  let ffi: typeof import("bun:ffi");
  try {
    // Not an import: this text runs unbundled, inside a worker.
    ffi = process.getBuiltinModule("bun:ffi" as "node:fs") as unknown as typeof import("bun:ffi");
  } catch {
    return undefined;
  }
  const symbols = {
    openat: { args: ["i32", "ptr", "i32", "i32"], returns: "i32" },
    // `ssize_t`, but a read of at most the buffer (a few MiB) or -1 fits 32 bits.
    read: { args: ["i32", "ptr", "u64"], returns: "i32" },
    close: { args: ["i32"], returns: "i32" },
    syscall: { args: ["i64", "i64", "i64"], returns: "i32" },
  } as const;
  const musl = process.arch === "arm64" ? "aarch64" : "x86_64";
  let lib: ReturnType<typeof ffi.dlopen<typeof symbols>>["symbols"] | undefined;
  for (const name of ["libc.so.6", `libc.musl-${musl}.so.1`]) {
    try {
      lib = ffi.dlopen(name, symbols).symbols;
      break;
    } catch {
      // Not this libc; try the next name.
    }
  }
  if (lib === undefined) return undefined;
  const calls = lib;
  // O_RDONLY | O_NOFOLLOW | O_NONBLOCK (a FIFO never blocks the open) | O_CLOEXEC.
  const flags =
    fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK | 0o2000000;
  // Memory the kernel writes into, made as ArrayBuffers so that it never moves.
  const statBuffer = new ArrayBuffer(256);
  const statAt = ffi.ptr(statBuffer);
  const stat = new DataView(statBuffer);
  const nameBuffer = new Uint8Array(new ArrayBuffer(4096));
  // Room for the longest name and its NUL.
  const nameRoom = nameBuffer.subarray(0, nameBuffer.length - 1);
  const nameAt = ffi.ptr(nameBuffer);
  const encoder = new TextEncoder();
  let buffer: { bytes: Buffer; at: number } | undefined;
  return {
    /** Opens `name` in `dirFd`, never through a link; the descriptor, or negative. */
    open(dirFd: number, name: string): number {
      const { read, written } = encoder.encodeInto(name, nameRoom);
      if (read !== name.length) return -1;
      nameBuffer[written] = 0;
      return calls.openat(dirFd, nameAt, flags, 0);
    },
    /** What the descriptor is; undefined when `fstat` fails. */
    fstat(fd: number) {
      if (calls.syscall(arch.fstat, fd, statAt) < 0) return undefined;
      return {
        isFile: (stat.getUint32(arch.modeAt, true) & 0o170000) === 0o100000,
        dev: stat.getBigUint64(0, true),
        ino: stat.getBigUint64(8, true),
        nlink: arch.nlinkWide
          ? stat.getBigUint64(arch.nlinkAt, true)
          : BigInt(stat.getUint32(arch.nlinkAt, true)),
        size: Number(stat.getBigInt64(48, true)),
      };
    },
    /**
     * Reads `fd` into the thread's buffer of `size` bytes until its end or the buffer is full;
     * the bytes (valid until the next call), or undefined when a read fails. Once `expected`
     * bytes (what `fstat` said, when not 0) are read the file is taken as ended: no read more
     * to see its end, and never fewer bytes than it held when stat'ed.
     */
    read(fd: number, size: number, expected: number): Buffer | undefined {
      if (buffer === undefined || buffer.bytes.length !== size) {
        const memory = new ArrayBuffer(size);
        buffer = { bytes: Buffer.from(memory), at: ffi.ptr(memory) };
      }
      let total = 0;
      while (total < size && (expected <= 0 || total < expected)) {
        const n = calls.read(fd, (buffer.at + total) as import("bun:ffi").Pointer, size - total);
        if (n < 0) return undefined;
        if (n === 0) break;
        total += n;
      }
      return buffer.bytes.subarray(0, total);
    },
    close(fd: number): void {
      calls.close(fd);
    },
  };
}
