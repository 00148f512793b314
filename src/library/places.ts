/**
 * Where a session looks for skills and custom commands, in order of precedence (the first of a
 * name wins). Skills: `.agents/skills/` in the session's directory and each parent up to the
 * repository root (nearest first, as Codex reads them), then in each additional directory, then
 * the config directory's `skills/`, then `~/.agents/skills/`. Custom commands: `.dsh/commands/`
 * on the same project walk, then the config directory's `commands/`.
 */
import { dirname, join, resolve } from "node:path";
import type { MarkdownPlace } from "../front-matter/index.ts";
import { realpathOr } from "../paths.ts";
import { findRepository } from "../permission/git-repository.ts";

/** What decides a session's places. */
export interface PlaceRoots {
  /** The session root, realpath'd. */
  readonly root: string;
  /** More directories the session works in, each searched like a project of its own. */
  readonly extraRoots: readonly string[];
  /** dsh's config directory (the folder of `DSH_CONFIG`, else `$XDG_CONFIG_HOME/dsh`). */
  readonly configDir: string | undefined;
  /** The user's home, for `~/.agents/skills`. */
  readonly home: string;
}

/** The places of a session: the skill folders and the command folders, in precedence order. */
export interface LibraryPlaces {
  readonly skills: readonly MarkdownPlace[];
  readonly commands: readonly MarkdownPlace[];
}

/** A session's places; a folder reached twice (home as the project) is searched once, first. */
export function libraryPlaces(roots: PlaceRoots): LibraryPlaces {
  const project = projectDirs(roots.root);
  const skills: MarkdownPlace[] = [
    ...project.dirs.map((dir) => place(join(dir, ".agents", "skills"), project.within, "project")),
    ...roots.extraRoots.flatMap((extra) => {
      const { dirs, within } = projectDirs(resolve(extra));
      return dirs.map((dir) => place(join(dir, ".agents", "skills"), within, "directory"));
    }),
    ...(roots.configDir === undefined
      ? []
      : [place(join(roots.configDir, "skills"), roots.configDir, "config")]),
    place(join(roots.home, ".agents", "skills"), join(roots.home, ".agents", "skills"), "user"),
  ];
  const commands: MarkdownPlace[] = [
    ...project.dirs.map((dir) => place(join(dir, ".dsh", "commands"), project.within, "project")),
    ...(roots.configDir === undefined
      ? []
      : [place(join(roots.configDir, "commands"), roots.configDir, "config")]),
  ];
  return { skills: distinct(skills), commands: distinct(commands) };
}

/**
 * `dir` and its parents up to the repository root, nearest first, and the root files there
 * must stay inside; outside a repository only `dir`.
 */
function projectDirs(dir: string): { dirs: string[]; within: string } {
  const worktree = findRepository(dir)?.worktree;
  if (worktree === undefined) return { dirs: [dir], within: dir };
  const dirs: string[] = [];
  for (let current = dir; ; current = dirname(current)) {
    dirs.push(current);
    if (current === worktree || dirname(current) === current) break;
  }
  return { dirs, within: worktree };
}

function place(dir: string, within: string, scope: string): MarkdownPlace {
  return { dir, within, scope };
}

/** `places` without a later one that is the same folder as an earlier one. */
function distinct(places: readonly MarkdownPlace[]): MarkdownPlace[] {
  const seen = new Set<string>();
  return places.filter((entry) => {
    const real = realpathOr(entry.dir);
    if (seen.has(real)) return false;
    seen.add(real);
    return true;
  });
}
