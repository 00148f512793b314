/** Host path facts shared by the sandbox and the file tools: real paths and containment. */
import { realpathSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";

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
