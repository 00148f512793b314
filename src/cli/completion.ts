/**
 * Tab completion in the chat's input: a slash command's name at the start of the line, a path
 * after `@` (a file to attach) or anywhere else in the line. Paths are relative to the
 * session's directory (or absolute, or under `~/`); a directory completes with its `/`.
 */
import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Completion } from "./line-editor.ts";

export interface CompleterDeps {
  /** Command names, without the slash. */
  readonly commands: () => readonly string[];
  readonly cwd: () => string;
  readonly home: string | undefined;
}

/** The most entries of one directory looked at. */
const MAX_ENTRIES = 2_000;

export function createCompleter(deps: CompleterDeps) {
  return async (text: string, cursor: number): Promise<Completion> => {
    const before = text.slice(0, cursor);
    const start =
      Math.max(before.lastIndexOf(" "), before.lastIndexOf("\n"), before.lastIndexOf("\t")) + 1;
    const word = before.slice(start);
    if (start === 0 && /^\/[A-Za-z0-9._:-]*$/.test(word)) {
      const names = deps.commands().filter((name) => name.startsWith(word.slice(1)));
      if (names.length > 0) return { start, candidates: names.map((name) => `/${name}`) };
    }
    const mention = word.startsWith("@");
    const candidates = await paths(mention ? word.slice(1) : word, deps);
    return { start, candidates: mention ? candidates.map((path) => `@${path}`) : candidates };
  };
}

/** The paths that `typed` may become: entries of its directory that begin with its last part. */
async function paths(typed: string, deps: CompleterDeps): Promise<string[]> {
  const slash = typed.lastIndexOf("/");
  const dirPart = typed.slice(0, slash + 1);
  const namePart = typed.slice(slash + 1);
  const expanded =
    dirPart.startsWith("~/") && deps.home !== undefined
      ? join(deps.home, dirPart.slice(2))
      : dirPart;
  const dir = resolve(deps.cwd(), expanded === "" ? "." : expanded);
  let entries: { name: string; isDirectory(): boolean; isSymbolicLink(): boolean }[];
  try {
    entries = (await readdir(dir, { withFileTypes: true })).slice(0, MAX_ENTRIES);
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.name.startsWith(namePart))
    .filter((entry) => namePart.startsWith(".") || !entry.name.startsWith("."))
    .map((entry) => `${dirPart}${entry.name}${entry.isDirectory() ? "/" : ""}`)
    .sort();
}
