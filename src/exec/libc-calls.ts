/**
 * The directory calls on Linux, from libc through `bun:ffi`: `openat`, `unlinkat`, `lseek` and
 * `close`, and the `getdents64` and `newfstatat` system calls through libc's `syscall` (glibc
 * has no wrapper for them before 2.30 and 2.33, and musl names them otherwise). Flags, call
 * numbers and the `struct stat` layout are the kernel's for x86-64 and arm64, the architectures
 * dsh is built for; glibc and musl agree on all of them.
 */
import type * as Ffi from "bun:ffi";
import { constants } from "node:os";
import { libcNames } from "../libc.ts";
import type { DirCalls, EntryStat, EntryVisitor, Errno } from "./dir-calls.ts";

interface Arch {
  readonly getdents64: number;
  readonly newfstatat: number;
  readonly oDirectory: number;
  readonly oNofollow: number;
  /** `st_mode` and `st_uid` as indexes of 32-bit words into `struct stat`. */
  readonly modeWord: number;
  readonly uidWord: number;
}

const ARCHES: Partial<Record<string, Arch>> = {
  x64: {
    getdents64: 217,
    newfstatat: 262,
    oDirectory: 0o200000,
    oNofollow: 0o400000,
    modeWord: 6,
    uidWord: 7,
  },
  arm64: {
    getdents64: 61,
    newfstatat: 79,
    oDirectory: 0o40000,
    oNofollow: 0o100000,
    modeWord: 4,
    uidWord: 6,
  },
};

const O_CLOEXEC = 0o2000000;
const AT_FDCWD = -100;
const AT_SYMLINK_NOFOLLOW = 0x100;
const AT_REMOVEDIR = 0x200;
const AT_EMPTY_PATH = 0x1000;
/**
 * `struct stat` is 144 bytes on x86-64 and 128 on arm64 (room is kept for either);
 * `st_dev`, `st_ino` and `st_ctim` sit alike in both.
 */
const STAT_BYTES = 256;
const DEV = 0;
const INO = 1;
const CTIME_SEC = 13;
const CTIME_NSEC = 14;
/** `struct linux_dirent64`: `d_reclen` at 16, `d_type` at 18, `d_name` from 19. */
const RECLEN = 16;
const TYPE = 18;
const NAME = 19;
const LIST_BYTES = 64 * 1024;

const SYMBOLS = {
  openat: { args: ["i32", "ptr", "i32", "i32"], returns: "i32" },
  unlinkat: { args: ["i32", "ptr", "i32"], returns: "i32" },
  // Both return a `long` that fits 32 bits here: a listing's byte count, 0, or -1.
  lseek: { args: ["i32", "i64", "i32"], returns: "i32" },
  close: { args: ["i32"], returns: "i32" },
  syscall: { args: ["i64", "i64", "i64", "i64", "i64"], returns: "i32" },
  __errno_location: { args: [], returns: "ptr" },
} as const;

type Symbols = Ffi.Library<typeof SYMBOLS>["symbols"];

/** The calls; throws an error naming why when libc cannot be reached. */
export function libcDirCalls(ffi: typeof Ffi): DirCalls {
  const arch = ARCHES[process.arch];
  if (arch === undefined) throw new Error(`dsh has no directory calls for ${process.arch} yet`);
  const failures: string[] = [];
  for (const name of libcNames()) {
    try {
      return bind(ffi, ffi.dlopen(name, SYMBOLS).symbols, arch);
    } catch (error) {
      failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  throw new Error(`libc cannot be reached through bun:ffi (${failures.join("; ")})`);
}

function bind(ffi: typeof Ffi, lib: Symbols, arch: Arch): DirCalls {
  const errnoAt = lib.__errno_location();
  if (errnoAt === null) throw new Error("libc's __errno_location returned NULL");
  const names = new Map(Object.entries(constants.errno).map(([name, code]) => [code, name]));
  const errno = (): Errno => {
    const code = ffi.read.i32(errnoAt, 0);
    return names.get(code) ?? `errno ${code}`;
  };
  const open = O_CLOEXEC | arch.oDirectory;
  // Buffers the kernel writes into, made as ArrayBuffers so that their memory never moves.
  const statBuffer = new ArrayBuffer(STAT_BYTES);
  const stat = new BigUint64Array(statBuffer);
  const words = new Uint32Array(statBuffer);
  const statAt = ffi.ptr(statBuffer);
  const listingBuffer = new ArrayBuffer(LIST_BYTES);
  const listing = new Uint8Array(listingBuffer);
  const view = new DataView(listingBuffer);
  const listingAt = ffi.ptr(listingBuffer);
  const empty = new Uint8Array(1);
  return {
    openPath(path) {
      const fd = lib.openat(AT_FDCWD, new TextEncoder().encode(`${path}\0`), open, 0);
      return fd < 0 ? errno() : fd;
    },
    openDir(at, name) {
      const fd = lib.openat(at, name, open | arch.oNofollow, 0);
      return fd < 0 ? errno() : fd;
    },
    stat(at, name): EntryStat | Errno {
      const path = ffi.ptr(name ?? empty);
      const flags = name === undefined ? AT_EMPTY_PATH : AT_SYMLINK_NOFOLLOW;
      if (lib.syscall(arch.newfstatat, at, path, statAt, flags) < 0) return errno();
      return {
        dev: stat[DEV] ?? 0n,
        ino: stat[INO] ?? 0n,
        ctimeNs: (stat[CTIME_SEC] ?? 0n) * 1_000_000_000n + (stat[CTIME_NSEC] ?? 0n),
        uid: words[arch.uidWord] ?? 0,
        mode: words[arch.modeWord] ?? 0,
      };
    },
    list(fd, visit: EntryVisitor) {
      if (lib.lseek(fd, 0, 0) < 0) return errno();
      for (;;) {
        const read = lib.syscall(arch.getdents64, fd, listingAt, LIST_BYTES, 0);
        if (read < 0) return errno();
        if (read === 0) return undefined;
        for (let at = 0; at < read; at += view.getUint16(at + RECLEN, true)) {
          const start = at + NAME;
          const end = listing.indexOf(0, start);
          if (!isDotOrDotDot(listing, start, end))
            visit(listing, start, end, listing[at + TYPE] ?? 0);
        }
      }
    },
    unlink(at, name, directory) {
      return lib.unlinkat(at, name, directory ? AT_REMOVEDIR : 0) < 0 ? errno() : undefined;
    },
    close(fd) {
      lib.close(fd);
    },
  };
}

function isDotOrDotDot(bytes: Uint8Array, start: number, end: number): boolean {
  const length = end - start;
  return bytes[start] === 0x2e && (length === 1 || (length === 2 && bytes[start + 1] === 0x2e));
}
