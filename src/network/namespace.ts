/**
 * A network namespace of its own for one command, made by dsh itself where it may (Linux, as
 * root): dsh's main thread enters a new namespace, brings its loopback up, opens the proxy's
 * listening socket there, and goes back. The command is later spawned from that thread while it
 * is inside again (`within`), so the command's only network is that namespace's loopback, and
 * the only thing listening there is dsh's own socket: no bridge process, nothing to start per
 * command but a few system calls.
 *
 * Only the calling thread changes namespace (setns and unshare act per thread for networks),
 * and it is always back before any other code runs: everything here is synchronous. Where the
 * first attempt fails (not root, no `bun:ffi`, no libc), `openNamespaces` says so and the
 * caller uses the bridge instead.
 */
import { closeSync, fstatSync, openSync, readlinkSync } from "node:fs";

const CLONE_NEWNET = 0x40000000;
const AF_INET = 2;
const SOCK_STREAM = 1;
const SOCK_DGRAM = 2;
const SOCK_NONBLOCK = 0o4000;
const SOCK_CLOEXEC = 0o2000000;
const SIOCGIFFLAGS = 0x8913;
const SIOCSIFFLAGS = 0x8914;
const IFF_UP = 1;
const BACKLOG = 512;

/** A namespace with a listening socket on `127.0.0.1:port` inside. */
export interface CommandNamespace {
  /** The listening socket (non-blocking, close-on-exec); the caller serves and closes it. */
  readonly fd: number;
  /**
   * Runs `start` (a spawn) with the calling thread inside the namespace; once, before `close`.
   * The process it started must be in the namespace: one that is not (a runtime that spawned
   * from another thread) would have dsh's own network, so it is killed, with its group, and
   * `within` throws.
   */
  within<T extends { readonly pid: number }>(start: () => T): T;
  /** Closes the namespace handle (the socket and the command keep it alive as long as they live). */
  close(): void;
}

export interface Namespaces {
  /** A fresh namespace listening on `port`; throws when the system refuses a step. */
  open(port: number): CommandNamespace;
  /** A fresh namespace for many commands (one session's), with no listener yet. */
  shared(): SharedNamespace;
}

/**
 * One network namespace that several commands run in, one after another or side by side (a
 * session's), so a server one of them started is reached by the others on its loopback. Each
 * command still gets a listener of its own, on its own port, so every connection is known to
 * be that command's.
 */
export interface SharedNamespace {
  /**
   * A listening socket on `127.0.0.1:port` inside (non-blocking, close-on-exec), or undefined
   * when that port is taken there (a command's own server holds it).
   */
  listen(port: number): number | undefined;
  /** Runs `start` (a spawn) with the calling thread inside; checked like `CommandNamespace`. */
  within<T extends { readonly pid: number }>(start: () => T): T;
  /** Drops dsh's handle; the namespace lives on while a command or socket is in it. */
  close(): void;
}

interface Libc {
  unshare(flags: number): number;
  setns(fd: number, type: number): number;
  socket(domain: number, type: number, protocol: number): number;
  bind(fd: number, address: Uint8Array, length: number): number;
  listen(fd: number, backlog: number): number;
  ioctl(fd: number, request: number, argument: Uint8Array): number;
  close(fd: number): number;
}

/**
 * The namespace maker of this process, or undefined where dsh may not make namespaces (one
 * trial namespace is made and dropped to find out).
 */
export async function openNamespaces(): Promise<Namespaces | undefined> {
  if (process.platform !== "linux") return undefined;
  const libc = await loadLibc();
  if (libc === undefined) return undefined;
  let home: number;
  try {
    home = openSync("/proc/thread-self/ns/net", "r");
  } catch {
    return undefined;
  }
  const namespaces: Namespaces = {
    open: (port) => openNamespace(libc, home, port),
    shared: () => openShared(libc, home),
  };
  try {
    const trial = namespaces.open(0);
    libc.close(trial.fd);
    trial.close();
  } catch {
    closeSync(home);
    return undefined;
  }
  return namespaces;
}

function openNamespace(libc: Libc, home: number, port: number): CommandNamespace {
  const shared = openShared(libc, home);
  const fd = shared.listen(port);
  if (fd === undefined) {
    shared.close();
    throw new Error(`the proxy cannot listen on 127.0.0.1:${port} in the command's namespace`);
  }
  let entered = false;
  return {
    fd,
    within(start) {
      if (entered) throw new Error("a command namespace is entered once");
      entered = true;
      return shared.within(start);
    },
    close: () => shared.close(),
  };
}

function openShared(libc: Libc, home: number): SharedNamespace {
  if (libc.unshare(CLONE_NEWNET) !== 0) throw new Error("unshare(CLONE_NEWNET) failed");
  let handle: number | undefined;
  try {
    handle = openSync("/proc/thread-self/ns/net", "r");
    loopbackUp(libc);
  } catch (error) {
    if (handle !== undefined) closeSync(handle);
    throw error;
  } finally {
    goHome(libc, home);
  }
  const namespace = handle;
  const expected = `net:[${fstatSync(namespace).ino}]`;
  let closed = false;
  const inside = <T>(run: () => T): T => {
    if (closed) throw new Error("the session's network namespace is closed");
    if (libc.setns(namespace, CLONE_NEWNET) !== 0)
      throw new Error("setns into the session's namespace failed");
    try {
      return run();
    } finally {
      goHome(libc, home);
    }
  };
  return {
    listen(port) {
      return inside(() => {
        try {
          return listenOn(libc, port);
        } catch {
          return undefined;
        }
      });
    },
    within(start) {
      const started = inside(start);
      refuseOutside(started.pid, expected);
      return started;
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(namespace);
    },
  };
}

/**
 * Kills `pid`'s group and throws when `pid` runs in another namespace than `expected`. A process
 * that has already ended and been reaped (a quick command on a busy machine) cannot be looked
 * at; that one passes: a runtime that spawned elsewhere would be caught on every other command.
 */
function refuseOutside(pid: number, expected: string): void {
  let actual: string;
  try {
    actual = readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return;
  }
  if (actual === expected) return;
  if (pid > 1) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // The group is gone already.
    }
  }
  throw new Error(
    `a command started outside its network namespace (${actual}, not ${expected}); it was killed`,
  );
}

/** Back to dsh's own namespace; failing here would leave the thread's sockets elsewhere. */
function goHome(libc: Libc, home: number): void {
  if (libc.setns(home, CLONE_NEWNET) !== 0) {
    throw new Error("dsh could not return to its own network namespace");
  }
}

function loopbackUp(libc: Libc): void {
  const fd = libc.socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw new Error("socket() for the loopback failed");
  try {
    // struct ifreq: the name in 16 bytes, then the flags as a short.
    const request = new Uint8Array(40);
    request.set(new TextEncoder().encode("lo"));
    const view = new DataView(request.buffer);
    if (libc.ioctl(fd, SIOCGIFFLAGS, request) !== 0) throw new Error("SIOCGIFFLAGS failed");
    view.setUint16(16, view.getUint16(16, true) | IFF_UP, true);
    if (libc.ioctl(fd, SIOCSIFFLAGS, request) !== 0) throw new Error("bringing up lo failed");
  } finally {
    libc.close(fd);
  }
}

function listenOn(libc: Libc, port: number): number {
  const fd = libc.socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw new Error("socket() for the proxy failed");
  // struct sockaddr_in: family (host order), port (network order), 127.0.0.1.
  const address = new Uint8Array(16);
  const view = new DataView(address.buffer);
  view.setUint16(0, AF_INET, true);
  view.setUint16(2, port, false);
  address.set([127, 0, 0, 1], 4);
  if (libc.bind(fd, address, address.length) !== 0 || libc.listen(fd, BACKLOG) !== 0) {
    libc.close(fd);
    throw new Error(`the proxy cannot listen on 127.0.0.1:${port} in the command's namespace`);
  }
  return fd;
}

async function loadLibc(): Promise<Libc | undefined> {
  try {
    const { dlopen, FFIType, ptr } = await import("bun:ffi");
    const symbols = {
      unshare: { args: [FFIType.i32], returns: FFIType.i32 },
      setns: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      bind: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
      listen: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
      ioctl: { args: [FFIType.i32, FFIType.u64, FFIType.ptr], returns: FFIType.i32 },
      close: { args: [FFIType.i32], returns: FFIType.i32 },
    } as const;
    const musl = process.arch === "arm64" ? "aarch64" : "x86_64";
    for (const name of ["libc.so.6", `libc.musl-${musl}.so.1`]) {
      let lib: ReturnType<typeof dlopen<typeof symbols>>;
      try {
        lib = dlopen(name, symbols);
      } catch {
        continue;
      }
      const c = lib.symbols;
      return {
        unshare: (flags) => c.unshare(flags),
        setns: (fd, type) => c.setns(fd, type),
        socket: (domain, type, protocol) => c.socket(domain, type, protocol),
        bind: (fd, address, length) => c.bind(fd, ptr(address), length),
        listen: (fd, backlog) => c.listen(fd, backlog),
        ioctl: (fd, request, argument) => c.ioctl(fd, request, ptr(argument)),
        close: (fd) => c.close(fd),
      };
    }
  } catch {
    // No bun:ffi in this build of Bun.
  }
  return undefined;
}
