/**
 * Protected project configuration: the files other programs load or run on their own when the
 * user next opens the project or runs its tools (an editor's workspace settings and tasks,
 * other agents' settings and hooks, direnv, npm, Yarn, Cargo, pre-commit, CI). A model that
 * writes one gets code run outside the sandbox, so sandboxed commands cannot write them and
 * the file tools ask first. One list for both.
 */
import { join, sep } from "node:path";
import { relativeInside } from "../paths.ts";

/** One protected entry, relative to a project directory. */
export interface ProjectConfigEntry {
  /** `/`-separated, relative to the project directory. */
  readonly path: string;
  /** `dir`: the whole tree is protected; `file`: the single file is. */
  readonly type: "dir" | "file";
  /** What reads it, for the user. */
  readonly reason: string;
}

const dir = (path: string, reason: string): ProjectConfigEntry => ({ path, type: "dir", reason });
const file = (path: string, reason: string): ProjectConfigEntry => ({
  path,
  type: "file",
  reason,
});

/**
 * The protected entries, as interface.md lists them; Cargo's whole `.cargo/`, which holds
 * `config.toml` and the older `config` that Cargo would take first.
 */
export const PROJECT_CONFIG: readonly ProjectConfigEntry[] = [
  dir(".vscode", "VS Code's workspace settings and tasks, which it runs on its own"),
  dir(".idea", "JetBrains IDEs' project settings and run configurations"),
  dir(".zed", "Zed's project settings and tasks"),
  dir(".claude", "Claude Code's project settings and hooks"),
  dir(".codex", "Codex's project configuration"),
  dir(".agents", "the skills agents load from the project"),
  dir(".dsh", "dsh's own project configuration"),
  file(".mcp.json", "the MCP servers other agents start"),
  file(".envrc", "the script direnv runs when you enter the directory"),
  dir(".devcontainer", "the dev container an editor builds and runs"),
  dir(".github/workflows", "the CI workflows, which run with the repository's secrets"),
  file(".npmrc", "npm's project configuration (script shell, node options, registry)"),
  file(".yarnrc.yml", "Yarn's project configuration (yarnPath runs a file)"),
  // Whole: Cargo prefers `.cargo/config` over `.cargo/config.toml` when both are there.
  dir(".cargo", "Cargo's configuration (config.toml: the runners and wrappers it runs)"),
  file(".pre-commit-config.yaml", "the hooks pre-commit runs on git commit"),
];

/** Where a path meets protected configuration. */
export interface ProjectConfigMatch {
  readonly entry: ProjectConfigEntry;
  /** The protected file or directory itself, absolute (in a nested project, there). */
  readonly path: string;
}

/**
 * The protected entry `target` is or lies in, in `root` or in any directory below it (a
 * nested project's `.vscode` counts too); undefined when none. Names are compared
 * case-insensitively (macOS file systems are). Both paths absolute; pure.
 */
export function projectConfigMatch(root: string, target: string): ProjectConfigMatch | undefined {
  const rel = relativeInside(root, target);
  if (rel === undefined || rel === "") return undefined;
  const parts = rel.split(sep);
  const lower = parts.map((part) => part.toLowerCase());
  for (let start = 0; start < parts.length; start++) {
    for (const entry of PROJECT_CONFIG) {
      const names = entry.path.split("/");
      const end = start + names.length;
      if (end > parts.length || (entry.type === "file" && end !== parts.length)) continue;
      if (!names.every((name, i) => lower[start + i] === name)) continue;
      return { entry, path: join(root, ...parts.slice(0, end)) };
    }
  }
  return undefined;
}
