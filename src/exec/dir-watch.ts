/**
 * What tells the walk for `.git` entries which directories' names changed since it last listed
 * them, so that it lists again only those (and what is below a new or moved directory), not
 * the whole workspace: an inotify instance per workspace (Linux), a watch on each directory
 * the walk has listed.
 *
 * A watch reports every entry added to, removed from or renamed into or out of its directory,
 * whoever does it and through whichever mount (the kernel reports at the inode), before the
 * call that made the change returns. So once a command's processes are gone, everything it did
 * to names is in the queue. What a watch cannot report is trusted to no watch:
 *
 * - a lost event (the queue overflowed), or a watch that could not be added: every listing is
 *   checked again the slow way (`git-entries.ts`, by change time);
 * - a mount made or removed in dsh's own view (names appear without any event): dsh's
 *   mount table is read before each walk, and any change distrusts every watch. A sandboxed
 *   command's mounts are its own namespace's, which the host never sees;
 * - a file system whose names can change without passing through this kernel (network and
 *   FUSE file systems) or another device than the workspace's: only directories on the
 *   workspace's own device, when it is a local file system, are watched.
 *
 * Watches and inotify instances are the user's to share with every other program (editors,
 * file watchers of build tools): the workspaces of one watcher (a backend's: one per dsh
 * process) together take at most a quarter of the system's limit of watches and an eighth of
 * its limit of instances; directories past that, and workspaces past that, are looked at the
 * slow way.
 */
import type * as Ffi from "bun:ffi";
import { readFileSync } from "node:fs";
import { openLibc } from "../libc.ts";

/** Watches on one workspace's directories, by directory key (device and inode). */
export interface DirWatch {
  /**
   * What changed since the last call: the keys of directories whose names changed (or that
   * went), or `all` when any watch may have missed something. Never throws.
   */
  changes(): { readonly all: boolean; readonly keys: readonly bigint[] };
  /**
   * Watches the open directory `fd` (key `key`, on device `dev`); true when it is watched now,
   * from before this call returned. Call before listing it.
   */
  watch(fd: number, key: bigint, dev: bigint): boolean;
  /** Whether `key` is watched. */
  watching(key: bigint): boolean;
  /** Ends the watches of every directory but those in `keep`. */
  keepOnly(keep: ReadonlySet<bigint>): void;
  close(): void;
}

/** Makes the watch of one workspace, given its open root directory. */
export type DirWatcher = (rootFd: number, rootDev: bigint) => DirWatch | undefined;

// inotify(7).
export const IN_NONBLOCK = 0o4000;
export const IN_CLOEXEC = 0o2000000;
export const IN_MOVED_FROM = 0x40;
export const IN_MOVED_TO = 0x80;
export const IN_CREATE = 0x100;
export const IN_DELETE = 0x200;
export const IN_DELETE_SELF = 0x400;
export const IN_MOVE_SELF = 0x800;
export const IN_UNMOUNT = 0x2000;
export const IN_Q_OVERFLOW = 0x4000;
export const IN_IGNORED = 0x8000;
export const IN_ONLYDIR = 0x1000000;
const NAMES_CHANGE =
  IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF;
/** `struct inotify_event`: wd, mask, cookie, len, then `len` bytes of name. */
export const EVENT_HEADER = 16;
export const EAGAIN = 11;
export const READ_BYTES = 64 * 1024;

/**
 * Local file systems (statfs(2) `f_type`), whose every change passes through this kernel:
 * ext2/3/4, XFS, Btrfs, tmpfs, F2FS, overlayfs (container roots), ZFS, bcachefs.
 */
export const LOCAL_FILE_SYSTEMS: ReadonlySet<number> = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x01021994, 0xf2f52010, 0x794c7630, 0x2fc12fc1, 0xca451a4e,
]);

export const SYMBOLS = {
  inotify_init1: { args: ["i32"], returns: "i32" },
  inotify_add_watch: { args: ["i32", "ptr", "u32"], returns: "i32" },
  inotify_rm_watch: { args: ["i32", "i32"], returns: "i32" },
  read: { args: ["i32", "ptr", "u64"], returns: "i64" },
  fstatfs: { args: ["i32", "ptr"], returns: "i32" },
  close: { args: ["i32"], returns: "i32" },
  __errno_location: { args: [], returns: "ptr" },
} as const;

/**
 * The watcher of this system, or undefined where there is none (then walks go by change time).
 * The watches it makes (a backend's, one per process in dsh) share its budgets.
 */
export async function loadDirWatcher(
  platform: NodeJS.Platform = process.platform,
): Promise<DirWatcher | undefined> {
  if (platform !== "linux") return undefined;
  const libc = await openLibc(() => SYMBOLS);
  if (libc === undefined) return undefined;
  const held: Held = new Set();
  return (rootFd, rootDev) => openWatch(libc.ffi, libc.symbols, held, rootFd, rootDev);
}

type Symbols = Ffi.ConvertFns<typeof SYMBOLS>;

function openWatch(
  ffi: typeof Ffi,
  lib: Symbols,
  held: Held,
  rootFd: number,
  rootDev: bigint,
): DirWatch | undefined {
  const statfs = new BigInt64Array(32);
  if (lib.fstatfs(rootFd, ffi.ptr(statfs)) !== 0) return undefined;
  if (!LOCAL_FILE_SYSTEMS.has(Number(statfs[0] ?? 0n))) return undefined;
  const mounts = mountTable();
  if (mounts === undefined) return undefined;
  const most = Math.floor(maxUserWatches() / 4);
  if (held.size >= instanceBudget()) return undefined;
  const fd = lib.inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return undefined;
  let lastMounts: string | undefined = mounts;
  const keys = new Map<number, bigint>();
  const wds = new Map<bigint, number>();
  const buffer = new ArrayBuffer(READ_BYTES);
  const view = new DataView(buffer);
  const at = ffi.ptr(buffer);
  const errnoAt = lib.__errno_location();
  let closed = false;
  const holding = { watches: () => wds.size };
  held.add(holding);
  const forgetAll = () => {
    for (const wd of wds.values()) lib.inotify_rm_watch(fd, wd);
    wds.clear();
    keys.clear();
  };
  return {
    changes() {
      const changed: bigint[] = [];
      let all = false;
      for (;;) {
        const read = Number(lib.read(fd, at, READ_BYTES));
        // EAGAIN: nothing more queued. Any other failure: nothing can be trusted.
        if (read <= 0) {
          if (read < 0 && (errnoAt === null || ffi.read.i32(errnoAt, 0) !== EAGAIN)) all = true;
          break;
        }
        for (let offset = 0; offset + EVENT_HEADER <= read; ) {
          const wd = view.getInt32(offset, true);
          const mask = view.getUint32(offset + 4, true);
          offset += EVENT_HEADER + view.getUint32(offset + 12, true);
          if ((mask & IN_Q_OVERFLOW) !== 0) all = true;
          const key = keys.get(wd);
          if (key === undefined) continue;
          changed.push(key);
          if ((mask & (IN_IGNORED | IN_UNMOUNT)) !== 0) {
            keys.delete(wd);
            wds.delete(key);
          }
        }
      }
      const now = mountTable();
      if (now === undefined || now !== lastMounts) all = true;
      lastMounts = now;
      if (all) forgetAll();
      return { all, keys: changed };
    },
    watch(dirFd, key, dev) {
      if (closed || dev !== rootDev) return false;
      if (wds.has(key)) return true;
      if (watchesHeld(held) >= most) return false;
      const path = new TextEncoder().encode(`/proc/self/fd/${dirFd}\0`);
      const wd = lib.inotify_add_watch(fd, path, NAMES_CHANGE | IN_ONLYDIR);
      if (wd < 0) return false;
      // Another directory's watch (a key reused after a directory went and its event is not
      // read yet): that one is distrusted, this one starts now.
      const previous = keys.get(wd);
      if (previous !== undefined && previous !== key) wds.delete(previous);
      keys.set(wd, key);
      wds.set(key, wd);
      return true;
    },
    watching: (key) => wds.has(key),
    keepOnly(keep) {
      for (const [key, wd] of wds) {
        if (keep.has(key)) continue;
        lib.inotify_rm_watch(fd, wd);
        wds.delete(key);
        keys.delete(wd);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      forgetAll();
      lib.close(fd);
      held.delete(holding);
    },
  };
}

/** What each open workspace watch of one watcher holds: one instance, and its watches. */
type Held = Set<{ readonly watches: () => number }>;

function watchesHeld(held: Held): number {
  let watches = 0;
  for (const holding of held) watches += holding.watches();
  return watches;
}

/** The most inotify instances one watcher may hold: an eighth of the user's limit. */
export function instanceBudget(): number {
  try {
    const limit = Number(readFileSync("/proc/sys/fs/inotify/max_user_instances", "utf8"));
    return Math.max(1, Math.floor((Number.isFinite(limit) && limit > 0 ? limit : 128) / 8));
  } catch {
    return 16;
  }
}

/** The user's inotify watches the system allows (fs.inotify.max_user_watches; 8192 if unknown). */
export function maxUserWatches(): number {
  try {
    const limit = Number(readFileSync("/proc/sys/fs/inotify/max_user_watches", "utf8"));
    return Number.isFinite(limit) && limit > 0 ? limit : 8192;
  } catch {
    return 8192;
  }
}

/** dsh's mount table as the kernel shows it, or undefined where it cannot be read. */
export function mountTable(): string | undefined {
  try {
    return readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return undefined;
  }
}
