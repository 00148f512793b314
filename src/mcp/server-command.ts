/**
 * Where a stdio server's command lies, found before anything is spawned: the supervisor chain
 * execs it only after a few steps of its own, where a missing command would be a bare exit
 * status, so it is looked up here and named in a clear error instead.
 *
 * A server runs outside the sandbox, so it is never found where a sandboxed command could
 * have put one: a PATH entry inside the project (an activated virtualenv's `.venv/bin`) or a
 * relative entry (`node_modules/.bin`, resolved in the project) is left out of the search and
 * of the server's own PATH, and a relative command path inside the project is refused. An
 * absolute command path is the user's own choice, wherever it points.
 */
import { existsSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { isExecutableFile } from "../exec/locate.ts";
import { isWithin, realpathOr } from "../paths.ts";

/** The command's absolute path, or why it cannot be run. */
export type ServerCommand =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: string };

/** A server's PATH with the entries a sandboxed command could write left out. */
export interface ServerSearchPath {
  /** The PATH the server gets and its command is looked up in. */
  readonly path: string;
  /** Each entry left out, with why. */
  readonly dropped: readonly { readonly entry: string; readonly why: string }[];
}

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

/**
 * `path` without its relative entries and those inside any of `project` (realpaths: the
 * session root and the repository holding it), compared as given and resolved.
 */
export function serverSearchPath(
  path: string | undefined,
  project: readonly string[],
): ServerSearchPath {
  const kept: string[] = [];
  const dropped: { entry: string; why: string }[] = [];
  for (const entry of (path ?? "").split(delimiter)) {
    if (!isAbsolute(entry)) {
      dropped.push({ entry, why: "a relative PATH entry, which names a place in the project" });
      continue;
    }
    const inside = project.find((dir) => isWithin(dir, entry) || isWithin(dir, realpathOr(entry)));
    if (inside === undefined) kept.push(entry);
    else dropped.push({ entry, why: `a PATH entry inside the project ${inside}` });
  }
  return { path: kept.join(delimiter), dropped };
}

/**
 * The server's command, found only outside the project: a relative path naming a file in the
 * project is refused, and a bare name found only in a dropped PATH entry is refused naming it.
 */
export function projectSafeCommand(
  command: string,
  cwd: string,
  search: ServerSearchPath,
  project: readonly string[],
): ServerCommand {
  const refuse = (where: string): ServerCommand => ({
    ok: false,
    reason:
      `${command} would run from ${where}, where sandboxed commands can write; dsh does not ` +
      "start an MCP server from there: give the absolute path of the one you mean as the " +
      "server's command",
  });
  if (command.includes("/") && !isAbsolute(command)) {
    const file = resolve(cwd, command);
    if (project.some((dir) => isWithin(dir, file))) return refuse(`${file}, inside the project`);
  }
  const found = resolveServerCommand(command, cwd, search.path);
  if (found.ok || command.includes("/")) return found;
  const shadow = search.dropped.find(({ entry }) =>
    isExecutableFile(join(resolve(cwd, entry), command)),
  );
  return shadow === undefined ? found : refuse(`${shadow.entry}, ${shadow.why}`);
}
