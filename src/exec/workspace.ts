/** Checks on the directories a command is given, before anything is spawned. */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { InvalidInputError } from "../errors.ts";
import type { GitUserConfig } from "../permission/git-repository.ts";

/**
 * The realpath of an absolute, existing directory. Throws InvalidInputError naming `label`
 * for a relative path, a path with NUL or newline, a missing path, or a non-directory.
 */
export function realDirectory(path: string, label: string): string {
  if (/[\0\n]/.test(path)) {
    throw new InvalidInputError(`${label} contains a NUL or newline character`, { [label]: path });
  }
  if (!isAbsolute(path)) {
    throw new InvalidInputError(`${label} must be an absolute path, got ${JSON.stringify(path)}`, {
      [label]: path,
    });
  }
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw new InvalidInputError(`${label} ${path} does not exist`, { [label]: path });
  }
  if (!statSync(real).isDirectory()) {
    throw new InvalidInputError(`${label} ${path} is not a directory`, { [label]: path });
  }
  return real;
}

/** Where the user's git reads its global config, from the parent's environment. */
export function gitUserConfig(
  home: string,
  env: Readonly<Record<string, string | undefined>>,
): GitUserConfig {
  return { home, xdgConfigHome: env.XDG_CONFIG_HOME, globalConfig: env.GIT_CONFIG_GLOBAL };
}
