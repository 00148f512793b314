/** The project a rule belongs to: the repository root holding a directory, else the directory. */
import { nodeFs } from "../lazy-builtins.ts";
import { dirname, join } from "node:path";

/** Nearest ancestor of `dir` (itself included) holding `.git`, else `dir`. */
export function projectRootOf(dir: string): string {
  for (let current = dir; ; current = dirname(current)) {
    if (nodeFs().existsSync(join(current, ".git"))) return current;
    if (dirname(current) === current) return dir;
  }
}
