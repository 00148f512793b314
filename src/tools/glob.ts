/** `glob`: files whose path matches a pattern, newest first. */
import * as path from "node:path";
import * as v from "valibot";
import { InvalidInputError } from "../errors.ts";
import { displayPath } from "./display-path.ts";
import type { SecretPlaces } from "../file-safety/credential-paths.ts";
import { UnsupportedFileError } from "../file-safety/errors.ts";
import { resolveForRead, statLocated } from "../file-safety/paths.ts";
import { snapshotSecrets } from "../file-safety/secret-identity.ts";
import { searchCallIntent, searchResultIntent, searchTitle } from "./search/search-intent.ts";
import type { SearchDetails } from "./search/search-intent.ts";
import type { Tool, ToolResult } from "./types.ts";
import { createMtimeReader } from "./search/mtime-reader.ts";
import { newestFirst } from "./search/newest-first.ts";
import { pathMatcher } from "./search/name-pattern.ts";
import { collectFiles, ignoredNote, namesHidden, skippedDirs } from "./search/walk.ts";

/** Paths listed per call. */
export const MAX_GLOB_RESULTS = 200;
/** Directory entries visited before a walk gives up. */
const MAX_WALK_ENTRIES = 200_000;

export const GlobInput = v.object({
  pattern: v.pipe(
    v.string(),
    v.description(
      'Glob pattern, e.g. "**/*.ts" or "src/**/test_*.py". "*" stays within one directory; "**" crosses directories.',
    ),
  ),
  path: v.optional(
    v.pipe(
      v.string(),
      v.description("Directory to search in. Default: the session's working directory."),
    ),
  ),
});
export type GlobInput = v.InferOutput<typeof GlobInput>;

export interface GlobDeps {
  /** What is never listed: credential stores, dsh's state directory (see `secretPlacesOf`). */
  readonly secrets: SecretPlaces;
}

/** Creates the `glob` tool. */
export function createGlobTool(deps: GlobDeps): Tool<typeof GlobInput, SearchDetails> {
  return {
    name: "glob",
    description:
      `Find files by path pattern. Lists up to ${MAX_GLOB_RESULTS} matching files, most recently modified first. ` +
      "Follows .gitignore, .ignore and .rgignore files and skips hidden files, .git and node_modules, unless the pattern or path names them.",
    input: GlobInput,
    async execute(input, ctx): Promise<ToolResult<SearchDetails>> {
      if (input.pattern.trim() === "") throw new InvalidInputError("pattern is empty");
      const split = splitPattern(input.pattern, input.path ?? ".");
      const secrets = snapshotSecrets(deps.secrets);
      const base = resolveForRead(ctx.cwd, split.base, secrets);
      const stats = statLocated(base);
      if (!stats.isDirectory()) throw new UnsupportedFileError(`${base.path} is not a directory`);
      const matches = pathMatcher(split.pattern);
      const found: string[] = [];
      // Times are read as matches are found, on another thread once there are many.
      using times = createMtimeReader();
      const walk = await collectFiles(base.real, {
        signal: ctx.signal,
        skipDirs: skippedDirs(input.pattern, input.path),
        secrets,
        maxDepth: split.pattern.includes("**")
          ? Number.POSITIVE_INFINITY
          : split.pattern.split("/").length,
        maxEntries: MAX_WALK_ENTRIES,
        hidden: namesHidden(input.pattern, input.path),
        onFile: (entry) => {
          if (!matches(entry.relative)) return;
          found.push(entry.absolute);
          times.add(entry.absolute);
        },
      });
      const shown = newestFirst(found, await times.done(ctx.signal), MAX_GLOB_RESULTS);
      const lines = shown.map((file) => displayPath(ctx.cwd, file));
      if (lines.length === 0)
        lines.push(`No files match ${input.pattern} in ${displayPath(ctx.cwd, base.real)}`);
      if (found.length > shown.length) {
        lines.push(
          `[${shown.length} of ${found.length} matches shown, newest first; narrow the pattern or path for the rest]`,
        );
      }
      if (walk.ignored > 0) lines.push(ignoredNote(walk.ignored));
      if (walk.capped)
        lines.push(
          `[the search stopped after ${MAX_WALK_ENTRIES} entries; some matches may be missing]`,
        );
      return {
        isError: false,
        output: lines.join("\n"),
        details: { hits: shown.map((file) => ({ path: file })), total: found.length },
      };
    },
    presentCall: (input, ctx) =>
      searchCallIntent(searchTitle("Glob", input.pattern, input.path, ctx)),
    presentResult: (input, result, ctx) =>
      searchResultIntent(searchTitle("Glob", input.pattern, input.path, ctx), result),
  };
}

/**
 * Moves a pattern's leading literal directories (and an absolute start) into the base, so
 * `src/**\/*.ts` walks only `src`. The last segment always stays in the pattern.
 */
export function splitPattern(pattern: string, base: string): { base: string; pattern: string } {
  const segments = pattern.split("/");
  let start = base;
  if (path.isAbsolute(pattern)) {
    start = "/";
    segments.shift();
  }
  const literal: string[] = [];
  while (segments.length > 1 && !/[*?[\]{}!\\]/.test(segments[0] ?? ""))
    literal.push(segments.shift() ?? "");
  return { base: path.join(start, ...literal), pattern: segments.join("/") };
}
