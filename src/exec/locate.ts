/** Finds the executables the runner depends on, by absolute path, never by a bare name. */
import { nodeFs } from "../lazy-builtins.ts";
import { delimiter, isAbsolute, join } from "node:path";

/** The first existing executable among `fixed`, then `name` on `path` (absolute entries only). */
export function findExecutable(
  name: string,
  fixed: readonly string[],
  path: string | undefined,
): string | undefined {
  const fromPath = (path ?? "")
    .split(delimiter)
    .filter((dir) => isAbsolute(dir))
    .map((dir) => join(dir, name));
  return [...fixed, ...fromPath].find(isExecutableFile);
}

/** The shell commands run in: bash when present, else sh. */
export function resolveShell(path: string | undefined): string {
  return (
    findExecutable("bash", ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"], path) ??
    findExecutable("sh", ["/bin/sh", "/usr/bin/sh"], path) ??
    "/bin/sh"
  );
}

/**
 * Why an executable that wraps every command must not be used, or undefined when it may:
 * it has to belong to root (or to `alsoOwner`, for one the user configured by name) and be
 * writable by nobody else (a writable `bwrap` on PATH would let anything that can write
 * there replace the sandbox).
 */
export function untrustedReason(file: string, alsoOwner?: number): string | undefined {
  try {
    const stat = nodeFs().statSync(file);
    if (stat.uid !== 0 && stat.uid !== alsoOwner) return `${file} is not owned by root`;
    if ((stat.mode & 0o022) !== 0) return `${file} is writable by group or others`;
    return undefined;
  } catch (error) {
    return `${file} cannot be inspected: ${String(error)}`;
  }
}

/** True for an existing regular file the current user may execute. */
export function isExecutableFile(file: string): boolean {
  try {
    const { accessSync, constants, statSync } = nodeFs();
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
