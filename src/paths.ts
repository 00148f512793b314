/** Host path facts shared by the sandbox and the file tools: real paths and containment. */
import { lstatSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";

/** The realpath of `path`, or `path` itself when it cannot be resolved (e.g. it does not exist). */
export function realpathOr(path: string): string {
  return realpathOrUndefined(path) ?? path;
}

/** The realpath of `path`, or undefined when it cannot be resolved (e.g. it does not exist). */
export function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The path of `target` relative to `root` when `target` is `root` or lies under it (`""` for
 * the root itself), otherwise undefined. Compared by path segments, so `/src/app-evil` is not
 * under `/src/app`. Both must be absolute.
 */
export function relativeInside(root: string, target: string): string | undefined {
  const rel = relative(root, target);
  if (rel === "") return "";
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel;
}

/** Whether `target` is `root` or lies under it, compared by path segments. Both must be absolute. */
export function isWithin(root: string, target: string): boolean {
  return relativeInside(root, target) !== undefined;
}

/**
 * The realpath of `path`, or of its deepest existing ancestor plus the rest: a path that does
 * not exist yet under a symlinked directory is named where it would appear.
 */
export function realpathOfAncestor(path: string): string {
  const missing: string[] = [];
  let current = path;
  while (!lexists(current)) {
    const parent = dirname(current);
    if (parent === current) return path;
    missing.unshift(basename(current));
    current = parent;
  }
  return join(realpathOr(current), ...missing);
}

/**
 * Whether the volume holding `path` looks names up without regard to case (APFS and HFS+ by
 * default, NTFS, an ext4 directory with casefold): found by looking up its deepest component
 * that has a letter under the other case, and comparing device and inode. False when no
 * component has a letter or the path cannot be examined. Never throws.
 */
export function foldsCase(path: string): boolean {
  for (let current = path; dirname(current) !== current; current = dirname(current)) {
    const name = basename(current);
    const flipped = name === name.toLowerCase() ? name.toUpperCase() : name.toLowerCase();
    if (flipped === name) continue;
    try {
      const own = lstatSync(current, { bigint: true, throwIfNoEntry: false });
      const other = lstatSync(join(dirname(current), flipped), {
        bigint: true,
        throwIfNoEntry: false,
      });
      return (
        own !== undefined && other !== undefined && own.dev === other.dev && own.ino === other.ino
      );
    } catch {
      return false;
    }
  }
  return false;
}

function lexists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
