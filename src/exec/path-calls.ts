/**
 * The directory calls where dsh has no libc binding for them (macOS): each descriptor keeps the
 * path it was opened by, and every call goes by that path plus one name. So a link swapped in
 * above the name by a concurrent command is followed, a path must fit the platform's PATH_MAX,
 * and names are what Node decodes (APFS and HFS+ keep only UTF-8 names). Only the final name is
 * never followed.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  rmdirSync,
  unlinkSync,
} from "node:fs";
import type { BigIntStats, Dirent } from "node:fs";
import { EntryType } from "./dir-calls.ts";
import type { DirCalls, EntryStat, Errno } from "./dir-calls.ts";

/** Calls by path; see the module note for what they cannot promise. */
export function pathDirCalls(): DirCalls {
  const paths = new Map<number, Buffer>();
  const encoder = new TextEncoder();
  const child = (at: number, name: Uint8Array) =>
    Buffer.concat([paths.get(at) ?? Buffer.alloc(0), Buffer.from("/"), name.subarray(0, -1)]);
  const opened = (path: Buffer, flags: number): number | Errno =>
    attempt(() => {
      const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | flags);
      paths.set(fd, path);
      return fd;
    });
  return {
    openPath: (path) => opened(Buffer.from(path), 0),
    openDir: (at, name) => opened(child(at, name), constants.O_NOFOLLOW),
    stat: (at, name) =>
      attempt(() =>
        entryStat(
          name === undefined
            ? fstatSync(at, { bigint: true })
            : lstatSync(child(at, name), { bigint: true }),
        ),
      ),
    list(fd, visit) {
      const listed = attempt(() => readdirSync(paths.get(fd) ?? "", { withFileTypes: true }));
      if (typeof listed === "string") return listed;
      for (const entry of listed) {
        const bytes = encoder.encode(`${entry.name}\0`);
        visit(bytes, 0, bytes.length - 1, typeOf(entry));
      }
      return undefined;
    },
    unlink(at, name, directory) {
      const path = child(at, name);
      const failed = attempt(() => (directory ? rmdirSync(path) : unlinkSync(path)));
      return typeof failed === "string" ? failed : undefined;
    },
    close(fd) {
      paths.delete(fd);
      attempt(() => closeSync(fd));
    },
  };
}

function entryStat(stat: BigIntStats): EntryStat {
  return {
    dev: stat.dev,
    ino: stat.ino,
    ctimeNs: stat.ctimeNs,
    uid: Number(stat.uid),
    mode: Number(stat.mode),
  };
}

function typeOf(entry: Dirent): number {
  if (entry.isDirectory()) return EntryType.dir;
  if (entry.isSymbolicLink()) return EntryType.link;
  return entry.isFile() ? EntryType.file : EntryType.unknown;
}

/** `run`'s value, or the errno name it threw with. */
function attempt<T>(run: () => T): T | Errno {
  try {
    return run();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return typeof code === "string" ? code : "EIO";
  }
}
