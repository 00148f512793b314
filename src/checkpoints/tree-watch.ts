/**
 * What tells a checkpoint which paths of a workspace root may have changed since the last one,
 * so that only those are hashed again: an inotify instance per root (Linux), a watch on each
 * directory the ignore rules leave in, reporting every name added, removed or renamed and
 * every file written or whose mode changed, whoever does it and through whichever mount (the
 * kernel reports at the inode, so a sandboxed command's bind mounts are seen too).
 *
 * What a watch cannot report makes the next checkpoint look at everything (`all`): a lost
 * event (the queue overflowed), a watch that could not be added or would go past the budget, a
 * mount made or removed in dsh's own view, a directory on another device, the root itself
 * moved or gone. Writes through a shared memory map and through a hard link from outside the
 * workspace are not reported by inotify either; they are the same limits git's own file system
 * monitor has.
 *
 * Watches are the user's to share with every other program: all roots of all sessions together
 * take at most a quarter of the system's limit of watches (the walk for `.git` entries takes at
 * most another quarter) and an eighth of its limit of inotify instances, and a root that would
 * need more is looked at the slow way.
 */
import type * as Ffi from "bun:ffi";
import { closeSync, openSync } from "node:fs";
import {
  EAGAIN,
  EVENT_HEADER,
  IN_CLOEXEC,
  IN_CREATE,
  IN_DELETE,
  IN_DELETE_SELF,
  IN_IGNORED,
  IN_MOVED_FROM,
  IN_MOVED_TO,
  IN_MOVE_SELF,
  IN_NONBLOCK,
  IN_ONLYDIR,
  IN_Q_OVERFLOW,
  IN_UNMOUNT,
  LOCAL_FILE_SYSTEMS,
  READ_BYTES,
  SYMBOLS,
  instanceBudget,
  maxUserWatches,
  mountTable,
} from "../exec/dir-watch.ts";
import { openLibc } from "../libc.ts";

/** What changed under one root since the last `take`. */
export type TreeChanges =
  | { readonly all: true }
  | {
      readonly all: false;
      /** Paths (relative to the root) whose content, mode or presence may have changed. */
      readonly paths: ReadonlySet<string>;
    };

/** The watches on one root's directories. */
export interface TreeWatch {
  /** What changed since the last call. Never throws. */
  take(): TreeChanges;
  /**
   * Watches the directory `relative` (`""`: the root); false when it cannot be (then the
   * next `take` says `all`). Call before listing it.
   */
  watch(relative: string): boolean;
  /** Ends every watch; the next `take` says `all` until directories are watched again. */
  reset(): void;
  close(): void;
}

// inotify(7), besides what the walk's watch uses.
const IN_MODIFY = 0x2;
const IN_ATTRIB = 0x4;
const IN_CLOSE_WRITE = 0x8;
const IN_DONT_FOLLOW = 0x2000000;
const IN_EXCL_UNLINK = 0x4000000;
const IN_ISDIR = 0x40000000;
const MASK =
  IN_MODIFY |
  IN_ATTRIB |
  IN_CLOSE_WRITE |
  IN_MOVED_FROM |
  IN_MOVED_TO |
  IN_CREATE |
  IN_DELETE |
  IN_DELETE_SELF |
  IN_MOVE_SELF |
  IN_ONLYDIR |
  IN_DONT_FOLLOW |
  IN_EXCL_UNLINK;
type Symbols = Ffi.ConvertFns<typeof SYMBOLS>;

/** Opens a watch of `root`; undefined where there can be none (then every checkpoint scans). */
export type TreeWatcher = (root: string) => TreeWatch | undefined;

/** Watches every root of the process holds now, against `watchBudget()`. */
let watchesHeld = 0;
/** inotify instances the roots hold now (one each), against `instanceBudget()`. */
let instancesHeld = 0;

/** The most watches all roots together may hold: a quarter of the user's limit. */
function watchBudget(): number {
  return Math.floor(maxUserWatches() / 4);
}

let loaded: Promise<TreeWatcher | undefined> | undefined;

/** The watcher of this system, or undefined where there is none (not Linux, no `bun:ffi`). */
export function loadTreeWatcher(
  platform: NodeJS.Platform = process.platform,
): Promise<TreeWatcher | undefined> {
  if (platform !== "linux") return Promise.resolve(undefined);
  loaded ??= openLibc(() => SYMBOLS).then((libc) => {
    if (libc === undefined) return undefined;
    const budget = watchBudget();
    const instances = instanceBudget();
    return (root: string) =>
      instancesHeld < instances ? openTreeWatch(libc.ffi, libc.symbols, root, budget) : undefined;
  });
  return loaded;
}

function openTreeWatch(
  ffi: typeof Ffi,
  lib: Symbols,
  root: string,
  budget: number,
): TreeWatch | undefined {
  const encoder = new TextEncoder();
  if (!onLocalFileSystem(lib, ffi, root)) return undefined;
  const fd = lib.inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return undefined;
  instancesHeld++;
  const dirs = new Map<number, string>();
  const buffer = new ArrayBuffer(READ_BYTES);
  const view = new DataView(buffer);
  const bytes = new Uint8Array(buffer);
  // A name that is not UTF-8 could not be named back to git: such an event distrusts the watch.
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const at = ffi.ptr(buffer);
  const errnoAt = lib.__errno_location();
  let lastMounts = mountTable();
  let trusted = false;
  let closed = false;
  let paths = new Set<string>();

  const forget = (wd: number) => {
    if (dirs.delete(wd)) watchesHeld--;
  };
  const reset = () => {
    for (const wd of [...dirs.keys()]) {
      lib.inotify_rm_watch(fd, wd);
      forget(wd);
    }
    trusted = false;
    paths = new Set();
  };
  /** Ends the watches of `dir` and every directory below it (it moved or went). */
  const unwatchBelow = (dir: string) => {
    for (const [wd, path] of dirs) {
      if (path === dir || path.startsWith(`${dir}/`)) {
        lib.inotify_rm_watch(fd, wd);
        forget(wd);
      }
    }
  };
  /** Reads the queue into `paths`; false when something may have been missed. */
  const drain = (): boolean => {
    for (;;) {
      const read = Number(lib.read(fd, at, READ_BYTES));
      if (read <= 0) {
        // EAGAIN: nothing more queued. Any other failure: nothing can be trusted.
        return !(read < 0 && (errnoAt === null || ffi.read.i32(errnoAt, 0) !== EAGAIN));
      }
      for (let offset = 0; offset + EVENT_HEADER <= read; ) {
        const wd = view.getInt32(offset, true);
        const mask = view.getUint32(offset + 4, true);
        const length = view.getUint32(offset + 12, true);
        const nameBytes = bytes.subarray(offset + EVENT_HEADER, offset + EVENT_HEADER + length);
        const end = nameBytes.indexOf(0);
        offset += EVENT_HEADER + length;
        let name: string;
        try {
          name = decoder.decode(end < 0 ? nameBytes : nameBytes.subarray(0, end));
        } catch {
          return false;
        }
        if ((mask & (IN_Q_OVERFLOW | IN_UNMOUNT)) !== 0) return false;
        const dir = dirs.get(wd);
        if (dir === undefined) continue;
        if ((mask & (IN_DELETE_SELF | IN_MOVE_SELF)) !== 0 && dir === "") return false;
        if ((mask & IN_IGNORED) !== 0) {
          forget(wd);
          continue;
        }
        if (name === "") continue;
        const path = dir === "" ? name : `${dir}/${name}`;
        paths.add(path);
        if ((mask & IN_ISDIR) !== 0 && (mask & (IN_MOVED_FROM | IN_DELETE)) !== 0) {
          unwatchBelow(path);
        }
      }
    }
  };
  return {
    take() {
      const complete = drain();
      const mounts = mountTable();
      const sure = complete && trusted && mounts !== undefined && mounts === lastMounts;
      lastMounts = mounts;
      if (!sure) {
        reset();
        return { all: true };
      }
      const taken = paths;
      paths = new Set();
      return { all: false, paths: taken };
    },
    watch(relative) {
      if (closed) return false;
      if (relative === "") trusted = true;
      if (watchesHeld >= budget) {
        trusted = false;
        return false;
      }
      const path = relative === "" ? root : `${root}/${relative}`;
      const wd = lib.inotify_add_watch(fd, ffi.ptr(encoder.encode(`${path}\0`)), MASK);
      if (wd < 0) {
        trusted = false;
        return false;
      }
      const known = dirs.get(wd);
      // The same directory under two names (a bind mount inside the root): events name one.
      if (known !== undefined && known !== relative) {
        trusted = false;
        return false;
      }
      if (known === undefined) watchesHeld++;
      dirs.set(wd, relative);
      return true;
    },
    reset,
    close() {
      if (closed) return;
      closed = true;
      reset();
      lib.close(fd);
      instancesHeld--;
    },
  };
}

/** Whether `root` lies on a file system whose every change passes through this kernel. */
function onLocalFileSystem(lib: Symbols, ffi: typeof Ffi, root: string): boolean {
  let fd: number;
  try {
    fd = openSync(root, "r");
  } catch {
    return false;
  }
  try {
    const statfs = new BigInt64Array(32);
    return (
      lib.fstatfs(fd, ffi.ptr(statfs)) === 0 && LOCAL_FILE_SYSTEMS.has(Number(statfs[0] ?? 0n))
    );
  } finally {
    closeSync(fd);
  }
}
