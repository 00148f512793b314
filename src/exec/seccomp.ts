/**
 * A classic-BPF seccomp filter for bwrap's `--seccomp FD` (sandbox.md §3.2 item 8), built
 * here so no native helper is needed. Defence in depth behind the namespaces: it kills a
 * process making system calls through a foreign ABI (i386 `int 0x80`, x32), and answers
 * EPERM to calls a build or test never needs but an escape often does (ptrace, io_uring,
 * keyrings, bpf, perf, userfaultfd, mounting, namespace changes, file-system encryption keys).
 *
 * Internet sockets stay allowed: the sandbox's private network namespace already cuts every
 * route out but dsh's proxy, and test suites legitimately serve on the sandbox's own loopback.
 * Raw and packet sockets (which would need capabilities the sandbox drops anyway) are refused.
 */
import { closeSync, openSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface ArchTable {
  /** AUDIT_ARCH_* of the native ABI. */
  readonly audit: number;
  /** The number of socket(2). */
  readonly socket: number;
  /** The number of ioctl(2). */
  readonly ioctl: number;
  /** Syscall numbers with this bit set belong to another ABI (x32 on x86_64). */
  readonly foreignBit?: number;
  readonly denied: readonly number[];
}

// Numbers from the kernel's syscall tables; the new mount API (428-433, 442) and io_uring
// (425-427) share numbers across architectures.
const SHARED = [425, 426, 427, 428, 429, 430, 431, 432, 433, 442];
const ARCHES: Readonly<Record<string, ArchTable>> = {
  x64: {
    audit: 0xc000003e,
    socket: 41,
    ioctl: 16,
    foreignBit: 0x40000000,
    // ptrace, process_vm_readv/writev, add_key, request_key, keyctl, bpf, perf_event_open,
    // userfaultfd, mount, umount2, pivot_root, unshare, setns
    denied: [101, 310, 311, 248, 249, 250, 321, 298, 323, 165, 166, 155, 272, 308, ...SHARED],
  },
  arm64: {
    audit: 0xc00000b7,
    socket: 198,
    ioctl: 29,
    denied: [117, 270, 271, 217, 218, 219, 280, 241, 282, 40, 39, 41, 97, 268, ...SHARED],
  },
};

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JSET_K = 0x45;
const AND_K = 0x54;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;
const RET_KILL_PROCESS = 0x80000000;
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0 = 16;
const OFFSET_ARG1 = 24;
const AF_PACKET = 17;
const SOCK_RAW = 3;
const SOCK_PACKET = 10;
const SOCK_TYPE_MASK = 0xf;
/**
 * fscrypt's ioctls (linux/fscrypt.h): setting a directory's encryption policy, adding and
 * removing keys. Adding or removing a key changes what a directory's names read as with no
 * change of names the watch or a change time could see, so a command could hide a `.git` from
 * the check after it and show it to the host's git later.
 */
const FSCRYPT_IOCTLS = [
  0x800c6613, // FS_IOC_SET_ENCRYPTION_POLICY
  0xc0506617, // FS_IOC_ADD_ENCRYPTION_KEY
  0xc0406618, // FS_IOC_REMOVE_ENCRYPTION_KEY
  0xc0406619, // FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS
];

/** The filter for `arch` (Node's `process.arch`), or undefined where dsh has no table. */
export function seccompProgram(arch: string): Uint8Array | undefined {
  const table = ARCHES[arch];
  if (table === undefined) return undefined;
  const denied = table.denied.length;
  const foreign = table.foreignBit === undefined ? 0 : 1;
  // Layout: load arch, check it, load nr, [x32 check], one jump per denied call, the socket
  // checks, the ioctl checks, then ALLOW, EPERM, KILL. Jump offsets count the instructions skipped.
  const prologue = 3 + foreign;
  const socketChecks = 7;
  const ioctlChecks = 3 + FSCRYPT_IOCTLS.length;
  const allowAt = prologue + denied + socketChecks + ioctlChecks;
  const killFrom = (at: number) => allowAt + 2 - (at + 1);
  const epermFrom = (at: number) => allowAt + 1 - (at + 1);
  const code: [number, number, number, number][] = [
    [LD_W_ABS, 0, 0, OFFSET_ARCH],
    [JEQ_K, 0, killFrom(1), table.audit],
    [LD_W_ABS, 0, 0, OFFSET_NR],
  ];
  if (table.foreignBit !== undefined) code.push([JSET_K, killFrom(3), 0, table.foreignBit]);
  table.denied.forEach((nr, i) => {
    code.push([JEQ_K, epermFrom(prologue + i), 0, nr]);
  });
  // socket(AF_PACKET, ...) and socket(..., SOCK_RAW or SOCK_PACKET, ...): EPERM.
  const at = prologue + denied;
  code.push(
    [JEQ_K, 0, socketChecks - 1, table.socket],
    [LD_W_ABS, 0, 0, OFFSET_ARG0],
    [JEQ_K, epermFrom(at + 2), 0, AF_PACKET],
    [LD_W_ABS, 0, 0, OFFSET_ARG1],
    [AND_K, 0, 0, SOCK_TYPE_MASK],
    [JEQ_K, epermFrom(at + 5), 0, SOCK_RAW],
    [JEQ_K, epermFrom(at + 6), 0, SOCK_PACKET],
  );
  // ioctl(fd, one of fscrypt's, ...): EPERM. The number again: the socket checks replaced it.
  const ioctlAt = at + socketChecks;
  code.push(
    [LD_W_ABS, 0, 0, OFFSET_NR],
    [JEQ_K, 0, ioctlChecks - 2, table.ioctl],
    [LD_W_ABS, 0, 0, OFFSET_ARG1],
  );
  FSCRYPT_IOCTLS.forEach((request, i) => {
    code.push([JEQ_K, epermFrom(ioctlAt + 3 + i), 0, request]);
  });
  code.push([RET_K, 0, 0, RET_ALLOW], [RET_K, 0, 0, RET_EPERM], [RET_K, 0, 0, RET_KILL_PROCESS]);
  const bytes = new Uint8Array(code.length * 8);
  const view = new DataView(bytes.buffer);
  code.forEach(([op, jt, jf, k], i) => {
    view.setUint16(i * 8, op, true);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k >>> 0, true);
  });
  return bytes;
}

/**
 * An fd holding `program` at offset 0, for one spawn: a private file, unlinked at once, so
 * nothing on disk outlives it. `close` after the child has started.
 */
export function seccompFd(program: Uint8Array): { fd: number; close(): void } {
  const path = join(tmpdir(), `dsh-seccomp-${process.pid}-${crypto.randomUUID()}`);
  const fd = openSync(path, "wx+", 0o600);
  try {
    // A positional write leaves the offset at 0, where bwrap starts reading.
    writeSync(fd, program, 0, program.length, 0);
  } finally {
    unlinkSync(path);
  }
  return { fd, close: () => closeSync(fd) };
}
