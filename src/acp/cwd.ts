/** The checks a session's working directory must pass before any agent is built. */
import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { InvalidInputError } from "../errors.ts";

/** Resolves when `cwd` is an absolute path to an existing directory; InvalidInputError otherwise. */
export async function checkCwd(cwd: string): Promise<void> {
  checkAbsolute(cwd);
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(cwd)).isDirectory();
  } catch {
    throw new InvalidInputError(`cwd does not exist: ${cwd}`, { cwd });
  }
  if (!isDirectory) throw new InvalidInputError(`cwd is not a directory: ${cwd}`, { cwd });
}

/** Throws InvalidInputError unless `cwd` is absolute (ACP requires absolute paths). */
export function checkAbsolute(cwd: string): void {
  if (!isAbsolute(cwd)) throw new InvalidInputError(`cwd must be an absolute path: ${cwd}`, { cwd });
}
