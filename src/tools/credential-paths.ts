/**
 * Credential locations under the user's home that dsh never hands to the model (sandbox.md
 * §3.2 item 7). Best effort: it covers the common stores, not every secret a user may keep.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { CREDENTIAL_DIRS, CREDENTIAL_FILES } from "../permission/credentials.ts";
import { relativeInside } from "./containment.ts";

/**
 * The credential entry an absolute path falls under, or undefined. `homeDirs` holds the home
 * directory as given and its realpath, so both a lexical path and a resolved one are caught.
 */
export function credentialMatch(
  absolutePath: string,
  homeDirs: readonly string[],
): string | undefined {
  for (const home of homeDirs) {
    const rel = relativeInside(home, absolutePath);
    if (rel === undefined || rel === "") continue;
    for (const dir of CREDENTIAL_DIRS) {
      if (rel === dir || rel.startsWith(`${dir}${path.sep}`)) return path.join(home, dir);
    }
    for (const file of CREDENTIAL_FILES) {
      if (rel === file) return path.join(home, file);
    }
  }
  return undefined;
}

/** The home directory as given and its realpath (they differ when `$HOME` is a symlink). */
export function homeDirsOf(homeDir: string): readonly string[] {
  try {
    const real = fs.realpathSync(homeDir);
    return real === homeDir ? [homeDir] : [homeDir, real];
  } catch {
    return [homeDir];
  }
}
