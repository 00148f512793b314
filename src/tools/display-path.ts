/** How a path is shown to people and the model: relative to the session root when inside it. */
import { relativeInside } from "../paths.ts";

/** A path for people and the model: relative to the session root when inside it, else absolute. */
export function displayPath(cwd: string, absolutePath: string): string {
  const rel = relativeInside(cwd, absolutePath);
  if (rel === undefined) return absolutePath;
  return rel === "" ? "." : rel;
}
