/**
 * Removes one path below a workspace on the host, through directory descriptors only: from the
 * workspace's own descriptor, each component is opened by name in the one before it, never
 * through a link, and every removal is `unlinkat` of one name in an open directory (which never
 * follows a link either). A sandboxed command cannot move a directory out of the workspace (a
 * rename across mounts fails), so whatever runs at the same time, nothing outside the
 * workspace is reached; a link on the way is what goes instead, and a tree is removed without
 * crossing into another file system.
 */
import type { DirCalls } from "./dir-calls.ts";
import { EntryType, isDirectoryMode, isLinkMode } from "./dir-calls.ts";
import { DirStack } from "./dir-stack.ts";

/** What became of the path: nothing was there, it (or a link on its way) is gone, or it stays. */
export type Removal =
  | { readonly type: "absent" }
  | { readonly type: "removed"; readonly parts: readonly Uint8Array[] }
  | { readonly type: "failed"; readonly reason: string };

const ABSENT: Removal = { type: "absent" };
/** Times a directory that filled again while it was emptied is emptied once more. */
const RETRIES = 3;

/**
 * Removes `parts` (components below `workspace`, each ending in a NUL), a whole tree when it is
 * a directory. Never throws.
 */
export function removeBeneath(
  calls: DirCalls,
  workspace: string,
  parts: readonly Uint8Array[],
  openDirs?: number,
): Removal {
  const root = calls.openPath(workspace);
  if (typeof root === "string") return failed(`the workspace cannot be opened (${root})`);
  const held = [root];
  try {
    for (const [index, name] of parts.entries()) {
      const at = held.at(-1) ?? root;
      if (index === parts.length - 1) return removeEntry(calls, at, name, parts, openDirs);
      const step = enter(calls, at, name);
      if (typeof step === "number") held.push(step);
      else if (step === "link") return removeLink(calls, at, name, parts.slice(0, index + 1));
      else return step === "absent" ? ABSENT : failed(step);
    }
    return ABSENT;
  } finally {
    for (const fd of held) calls.close(fd);
  }
}

/** The directory `name` in `at`, opened; or a link there; or nothing to go through. */
function enter(calls: DirCalls, at: number, name: Uint8Array): number | "link" | "absent" | string {
  for (let attempt = 0; attempt < RETRIES; attempt++) {
    const stat = calls.stat(at, name);
    if (stat === "ENOENT") return "absent";
    if (typeof stat === "string") return `it cannot be examined (${stat})`;
    if (isLinkMode(stat.mode)) return "link";
    if (!isDirectoryMode(stat.mode)) return "absent";
    const fd = calls.openDir(at, name);
    if (typeof fd === "number") return fd;
    if (fd === "ENOENT") return "absent";
    // Swapped for a link or a file since the stat: look again.
    if (fd !== "ELOOP" && fd !== "ENOTDIR") return `it cannot be opened (${fd})`;
  }
  return "it keeps changing";
}

/**
 * Removes the link `name` in `at`, and nothing else: a directory swapped in for it meanwhile
 * stays (`unlinkat` without `AT_REMOVEDIR` never removes one), and the walk looks again.
 */
function removeLink(
  calls: DirCalls,
  at: number,
  name: Uint8Array,
  parts: readonly Uint8Array[],
): Removal {
  const gone = calls.unlink(at, name, false);
  if (gone === undefined) return { type: "removed", parts };
  if (gone === "ENOENT") return ABSENT;
  return gone === "EISDIR" || gone === "EPERM" ? failed("it keeps changing") : failed(gone);
}

/** Removes the entry `name` in `at`, whatever it is. */
function removeEntry(
  calls: DirCalls,
  at: number,
  name: Uint8Array,
  parts: readonly Uint8Array[],
  openDirs?: number,
): Removal {
  const stat = calls.stat(at, name);
  if (stat === "ENOENT") return ABSENT;
  if (typeof stat === "string") return failed(`it cannot be examined (${stat})`);
  if (isDirectoryMode(stat.mode)) return removeTree(calls, at, name, parts, stat.dev, openDirs);
  const gone = calls.unlink(at, name, false);
  if (gone === undefined) return { type: "removed", parts };
  return gone === "ENOENT" ? ABSENT : failed(gone);
}

interface Frame {
  fd: number;
  readonly dev: bigint;
  readonly ino: bigint;
  readonly name: Uint8Array;
  /** Subdirectories still to remove; undefined until the directory was emptied of the rest. */
  pending?: Uint8Array[];
}

/** Removes the directory `name` in `parent` with all it holds, on the file system `dev` only. */
function removeTree(
  calls: DirCalls,
  parent: number,
  name: Uint8Array,
  parts: readonly Uint8Array[],
  dev: bigint,
  openDirs?: number,
): Removal {
  const stack = new DirStack<Frame>(calls, openDirs);
  let retries = 0;
  const push = (at: number, child: Uint8Array): Removal | undefined => {
    const fd = calls.openDir(at, child);
    if (fd === "ENOENT") return undefined;
    if (fd === "ELOOP" || fd === "ENOTDIR") {
      const gone = calls.unlink(at, child, false);
      return gone === undefined || gone === "ENOENT" ? undefined : failed(gone);
    }
    if (typeof fd === "string") return failed(`a directory in it cannot be opened (${fd})`);
    const stat = calls.stat(fd);
    if (typeof stat === "string" || stat.dev !== dev) {
      calls.close(fd);
      return failed(typeof stat === "string" ? stat : "it holds a mount point");
    }
    stack.push({ fd, dev, ino: stat.ino, name: child });
    return undefined;
  };
  try {
    const first = push(parent, name);
    if (first !== undefined) return first;
    for (let frame = stack.top; frame !== undefined; frame = stack.top) {
      if (frame.pending === undefined) {
        const subdirs: Uint8Array[] = [];
        const rest = removeNonDirectories(calls, frame.fd, subdirs);
        if (rest !== undefined) return failed(rest);
        frame.pending = subdirs;
      }
      const next = frame.pending.pop();
      if (next !== undefined) {
        const stop = push(frame.fd, next);
        if (stop !== undefined) return stop;
        continue;
      }
      // Emptied: it goes from the directory it is in.
      if (!stack.pop()) return failed("directories were moved while dsh removed them");
      const at = stack.top?.fd ?? parent;
      const gone = calls.unlink(at, frame.name, true);
      if (gone === undefined || gone === "ENOENT") continue;
      // Something was added meanwhile: empty it again, a few times at most.
      if ((gone === "ENOTEMPTY" || gone === "EEXIST") && retries++ < RETRIES) {
        const again = push(at, frame.name);
        if (again !== undefined) return again;
        continue;
      }
      return failed(gone);
    }
    return { type: "removed", parts };
  } finally {
    stack.dispose();
  }
}

/**
 * Unlinks every entry of the directory `fd` that is not a directory, and adds the names of
 * those that are to `subdirs`. Returns why it could not, if it could not.
 */
function removeNonDirectories(
  calls: DirCalls,
  fd: number,
  subdirs: Uint8Array[],
): string | undefined {
  const others: Uint8Array[] = [];
  const failedList = calls.list(fd, (bytes, start, end, type) => {
    (type === EntryType.dir ? subdirs : others).push(bytes.slice(start, end + 1));
  });
  if (failedList !== undefined) return `it cannot be listed (${failedList})`;
  for (const name of others) {
    const gone = calls.unlink(fd, name, false);
    if (gone === undefined || gone === "ENOENT") continue;
    // A directory after all (an unknown type, or swapped in since the listing).
    const stat = calls.stat(fd, name);
    if (typeof stat !== "string" && isDirectoryMode(stat.mode)) subdirs.push(name);
    else return gone;
  }
  return undefined;
}

function failed(reason: string): Removal {
  return { type: "failed", reason };
}
