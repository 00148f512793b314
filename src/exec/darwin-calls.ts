/**
 * What dsh asks of macOS to find a command's processes wherever they went: every pid of the
 * machine (`proc_listallpids`), each one's owner and state (`proc_pidinfo`), and what its
 * sandbox allows (`sandbox_check`, libSystem's, stable since 10.5). A process cannot leave its
 * sandbox, so the processes whose sandbox lets them write one command's own temp directory, and
 * nothing beside it, are that command's, whatever `setsid` or double forks they did.
 *
 * `sandbox_check` is variadic: its path argument goes where a variadic argument goes, which
 * on arm64 is the stack (the call is declared with eight register arguments before it) and on
 * x86-64 the fourth register. Loaded on first use through `bun:ffi`.
 */
import type * as Ffi from "bun:ffi";
import type { ProcessCalls } from "./sandbox-sweep.ts";

/** `PROC_PIDTBSDINFO`, and the size of `struct proc_bsdinfo`. */
const PROC_PIDTBSDINFO = 3;
const BSDINFO_BYTES = 136;
/** `pbi_status` and `pbi_uid` in `struct proc_bsdinfo`, as 32-bit words. */
const STATUS_WORD = 1;
const UID_WORD = 5;
/** `SZOMB`: a process that exited and is waiting to be reaped. */
const ZOMBIE = 5;
/** `SANDBOX_FILTER_PATH`, with `SANDBOX_CHECK_NO_REPORT` so that no check is logged as denied. */
const FILTER_PATH = 1 | 0x40000000;
/** `_PC_CASE_SENSITIVE` for `pathconf`. */
const PC_CASE_SENSITIVE = 11;

const COMMON = {
  proc_listallpids: { args: ["ptr", "i32"], returns: "i32" },
  proc_pidinfo: { args: ["i32", "i32", "u64", "ptr", "i32"], returns: "i32" },
  pathconf: { args: ["ptr", "i32"], returns: "i64" },
} as const;

const CHECK_X64 = {
  sandbox_check: { args: ["i32", "ptr", "i32", "ptr"], returns: "i32" },
} as const;

const CHECK_ARM64 = {
  sandbox_check: {
    args: ["i32", "ptr", "i32", "i64", "i64", "i64", "i64", "i64", "ptr"],
    returns: "i32",
  },
} as const;

/** macOS's calls; throws an error naming why when libSystem cannot be reached. */
export function darwinCalls(ffi: typeof Ffi): ProcessCalls & { foldsCase(path: string): boolean } {
  const arm = process.arch === "arm64";
  const library = ffi.dlopen("/usr/lib/libSystem.B.dylib", {
    ...COMMON,
    ...(arm ? CHECK_ARM64 : CHECK_X64),
  });
  const lib = library.symbols;
  const encode = (text: string) => new TextEncoder().encode(`${text}\0`);
  const operation = encode("file-write-create");
  const info = new ArrayBuffer(BSDINFO_BYTES);
  const words = new Uint32Array(info);
  const infoAt = ffi.ptr(info);
  let pids = new Int32Array(4096);
  const check = (pid: number, path: Uint8Array): number =>
    arm
      ? (lib.sandbox_check as (...args: unknown[]) => number)(
          pid,
          operation,
          FILTER_PATH,
          0,
          0,
          0,
          0,
          0,
          path,
        )
      : (lib.sandbox_check as (...args: unknown[]) => number)(pid, operation, FILTER_PATH, path);
  return {
    pids() {
      for (;;) {
        const count = lib.proc_listallpids(pids, pids.byteLength);
        if (count < pids.length) return [...pids.subarray(0, Math.max(0, count))];
        pids = new Int32Array(pids.length * 2);
      }
    },
    describe(pid) {
      const read = lib.proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, infoAt, BSDINFO_BYTES);
      if (read < BSDINFO_BYTES) return undefined;
      return { uid: words[UID_WORD] ?? -1, zombie: words[STATUS_WORD] === ZOMBIE };
    },
    // 0: allowed; 1: denied; -1: no such process. An unsandboxed process is allowed anything.
    mayWrite: (pid, path) => check(pid, encode(path)) === 0,
    foldsCase: (path) => Number(lib.pathconf(encode(path), PC_CASE_SENSITIVE)) === 0,
  };
}
