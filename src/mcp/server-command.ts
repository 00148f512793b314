/**
 * Where a stdio server's command lies, found before anything is spawned: the supervisor chain
 * execs it only after a few steps of its own, where a missing command would be a bare exit
 * status, so it is looked up here and named in a clear error instead.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { isExecutableFile } from "../exec/locate.ts";

/** The command's absolute path, or why it cannot be run. */
export type ServerCommand =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: string };

/**
 * Resolves `command` as a shell would: a name with a slash against `cwd`, a bare name on
 * `path` (the server's own PATH).
 */
export function resolveServerCommand(
  command: string,
  cwd: string,
  path: string | undefined,
): ServerCommand {
  if (command.trim() === "") return { ok: false, reason: "no command given" };
  if (command.includes("/")) {
    const file = resolve(cwd, command);
    if (!existsSync(file)) return { ok: false, reason: `command not found: ${command}` };
    if (!isExecutableFile(file)) return { ok: false, reason: `command not executable: ${command}` };
    return { ok: true, path: file };
  }
  const found = Bun.which(command, { PATH: path ?? "", cwd });
  return found === null
    ? { ok: false, reason: `command not found: ${command}` }
    : { ok: true, path: found };
}
