/**
 * Where a repository keeps hooks that git runs on the host: `core.hooksPath` (husky's `.husky`,
 * say). Both the command sandbox and the file tools keep the model out of it.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

/** `core.hooksPath` from a git config file, when set (a plain read: no includes, no `~`). */
export function configuredHooksPath(configFile: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(configFile, "utf8");
  } catch {
    return undefined;
  }
  let inCore = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const section = /^\[\s*([^\]\s"]+)/.exec(line);
    if (section) {
      inCore = section[1]?.toLowerCase() === "core";
      continue;
    }
    const entry = /^hookspath\s*=\s*(.*)$/i.exec(line);
    if (inCore && entry) {
      const value = (entry[1] ?? "").replace(/^"(.*)"$/, "$1").trim();
      return value === "" ? undefined : value;
    }
  }
  return undefined;
}

/** The absolute hooks directory `core.hooksPath` names for a worktree at `root`, if any. */
export function hooksPathOf(root: string, gitDir = join(root, ".git")): string | undefined {
  const hooksPath = configuredHooksPath(join(gitDir, "config"));
  if (hooksPath === undefined) return undefined;
  return isAbsolute(hooksPath) ? hooksPath : resolve(root, hooksPath);
}
