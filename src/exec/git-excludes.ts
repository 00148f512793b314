/**
 * What git inside the sandbox ignores while placeholders stand in the workspace: the user's
 * own excludes file, plus each placeholder. An empty placeholder file is otherwise an
 * untracked file to git, and a command's `git add -A` would stage and commit files the
 * project does not have once the command ended.
 */
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { findRepository, gitExcludesFile } from "../permission/git-repository.ts";
import type { GitUserConfig } from "../permission/git-repository.ts";
import type { Placeholder } from "./placeholders.ts";

/** Where the excludes are shown inside the sandbox's private `/tmp`. */
export const SANDBOX_EXCLUDES = "/tmp/.dsh-git-excludes";

/** The user's excludes file is read up to this size; git itself reads whole files. */
const MAX_USER_EXCLUDES = 1024 * 1024;

/**
 * The excludes for git in `workspace`: the text of the user's excludes file (as git would
 * find it) followed by one anchored pattern per placeholder, relative to the repository's
 * top (or the workspace's, outside one). Reads the user's config and excludes file.
 */
export function placeholderExcludes(
  workspace: string,
  placeholders: readonly Placeholder[],
  user: GitUserConfig,
): string {
  const repo = findRepository(workspace);
  const own = readBounded(gitExcludesFile(repo, user));
  const top = repo?.worktree ?? workspace;
  const patterns = placeholders.map((placeholder) => {
    const parts = relative(top, placeholder.path).split(sep).map(escapePattern);
    return `/${parts.join("/")}${placeholder.type === "dir" ? "/" : ""}`;
  });
  const separator = own === "" || own.endsWith("\n") ? "" : "\n";
  return `${own}${separator}# dsh: placeholders of protected project configuration\n${patterns.join("\n")}\n`;
}

/**
 * The variables that point git at `file` for `core.excludesFile`, after any `GIT_CONFIG_*`
 * pairs `env` already holds (git reads them in order; the last value wins).
 */
export function excludesEnv(
  env: Readonly<Record<string, string>>,
  file: string,
): Record<string, string> {
  const count = Number.parseInt(env.GIT_CONFIG_COUNT ?? "0", 10);
  const index = Number.isSafeInteger(count) && count > 0 ? count : 0;
  return {
    GIT_CONFIG_COUNT: String(index + 1),
    [`GIT_CONFIG_KEY_${index}`]: "core.excludesFile",
    [`GIT_CONFIG_VALUE_${index}`]: file,
  };
}

/** A name as a literal gitignore pattern component (the pattern starts with `/`). */
function escapePattern(name: string): string {
  return name.replace(/[\\*?[\]]/g, "\\$&").replace(/ +$/, (spaces) => spaces.replace(/ /g, "\\ "));
}

function readBounded(file: string): string {
  try {
    return readFileSync(file, "utf8").slice(0, MAX_USER_EXCLUDES);
  } catch {
    return "";
  }
}
