/** Path containment by segments: `/src/app-evil` is not inside `/src/app`. */
import * as path from "node:path";

/**
 * The path of `target` relative to `root` when `target` is `root` or lies under it (`""` for
 * the root itself), otherwise undefined. Both must be absolute and normalised.
 */
export function relativeInside(root: string, target: string): string | undefined {
  const rel = path.relative(root, target);
  if (rel === "") return "";
  if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return undefined;
  return rel;
}

/** Whether `target` is `root` or lies under it, compared by path segments. */
export function isInside(root: string, target: string): boolean {
  return relativeInside(root, target) !== undefined;
}

/** A path for people and the model: relative to the session root when inside it, else absolute. */
export function displayPath(cwd: string, absolutePath: string): string {
  const rel = relativeInside(cwd, absolutePath);
  if (rel === undefined) return absolutePath;
  return rel === "" ? "." : rel;
}
