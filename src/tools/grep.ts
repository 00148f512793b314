/**
 * `grep`: lines matching a JavaScript regular expression, searched by dsh itself. It does not
 * shell out to ripgrep, so results do not depend on what is installed, but it follows the same
 * rules: ignore files, hidden entries skipped unless named (see `search/walk.ts`). Files are read and
 * matched in worker threads (see `search/file-searcher.ts`): a pathological regex is stopped
 * by the turn's cancel or by the time budget, and never blocks the process.
 */
import * as path from "node:path";
import * as v from "valibot";
import { InvalidInputError, errorMessage } from "../errors.ts";
import { displayPath } from "./display-path.ts";
import type { SecretPlaces } from "../file-safety/credential-paths.ts";
import { MAX_FILE_BYTES, formatBytes } from "../file-safety/file-io.ts";
import type { Location } from "../render/intent.ts";
import { resolveForRead, statLocated } from "../file-safety/paths.ts";
import {
  type FileIdentity,
  type SecretSnapshot,
  snapshotSecrets,
} from "../file-safety/secret-identity.ts";
import { searchCallIntent, searchResultIntent, searchTitle } from "./search/search-intent.ts";
import type { SearchDetails } from "./search/search-intent.ts";
import { createFileSearcher } from "./search/file-searcher.ts";
import { createPathFeed } from "./search/path-feed.ts";
import { type BatchReport, FileStatus } from "./search/search-worker.ts";
import type { Tool, ToolResult } from "./types.ts";
import {
  type WalkEntry,
  collectFiles,
  ignoredNote,
  namesHidden,
  skippedDirs,
} from "./search/walk.ts";

/** Default wall time one grep call may spend reading and matching. */
export const MATCH_BUDGET_MS = 10_000;

/** Matching lines returned per call. */
export const MAX_GREP_MATCHES = 200;
/** Characters kept of a matching line. */
export const MAX_GREP_LINE_CHARS = 500;
const MAX_WALK_ENTRIES = 200_000;

export const GrepInput = v.object({
  pattern: v.pipe(
    v.string(),
    v.description(
      'JavaScript regular expression to search file contents for, line by line (e.g. "function\\\\s+load").',
    ),
  ),
  path: v.optional(
    v.pipe(
      v.string(),
      v.description("File or directory to search. Default: the session's working directory."),
    ),
  ),
  glob: v.optional(
    v.pipe(
      v.string(),
      v.description(
        'Only search files matching this glob, e.g. "*.ts" (matched against the file name) or "src/**/*.py" (against the path).',
      ),
    ),
  ),
  ignore_case: v.optional(
    v.pipe(v.boolean(), v.description("Match case-insensitively. Default false.")),
  ),
});
export type GrepInput = v.InferOutput<typeof GrepInput>;

export interface GrepDeps {
  /** What is never searched: credential stores, dsh's state directory (see `secretPlacesOf`). */
  readonly secrets: SecretPlaces;
  /** Time one call may spend matching before it stops with an error. Default `MATCH_BUDGET_MS`. */
  readonly matchBudgetMs?: number;
}

interface Tally {
  readonly lines: string[];
  readonly hits: Location[];
  searched: number;
  tooLarge: number;
}

/** Creates the `grep` tool. */
export function createGrepTool(deps: GrepDeps): Tool<typeof GrepInput, SearchDetails> {
  return {
    name: "grep",
    description:
      "Search file contents with a regular expression (JavaScript syntax). Returns matching lines as " +
      `path:line:text, at most ${MAX_GREP_MATCHES}. Follows .gitignore, .ignore and .rgignore files and skips hidden files, ` +
      "binary files, files over 2 MiB, .git and node_modules, unless the path or glob names them.",
    input: GrepInput,
    async execute(input, ctx): Promise<ToolResult<SearchDetails>> {
      const regex = compile(input.pattern, input.ignore_case === true);
      const secrets = snapshotSecrets(deps.secrets);
      const base = resolveForRead(ctx.cwd, input.path ?? ".", secrets);
      const filter =
        input.glob === undefined || input.glob === "" ? undefined : new Bun.Glob(input.glob);
      const byPath = input.glob?.includes("/") === true;
      const tally: Tally = { lines: [], hits: [], searched: 0, tooLarge: 0 };
      let capped = false;
      let ignored = 0;
      // The walk feeds the searchers as it goes: reading and matching overlap the listing.
      const files: string[] = [];
      const feed = createPathFeed();
      const keep = (entry: WalkEntry) => {
        if (entry.isSymlink) return;
        if (
          filter !== undefined &&
          !filter.match(byPath ? entry.relative : path.basename(entry.relative))
        )
          return;
        files.push(entry.absolute);
        feed.push(entry.absolute);
      };
      using searcher = createFileSearcher({
        regex,
        pattern: input.pattern,
        lineChars: MAX_GREP_LINE_CHARS,
        maxBytes: MAX_FILE_BYTES,
        budgetMs: deps.matchBudgetMs ?? MATCH_BUDGET_MS,
        signal: ctx.signal,
      });
      const searching = searcher.search(feed, MAX_GREP_MATCHES, (report, first) =>
        merge(report, first, files, tally, ctx.cwd, guardOf(secrets, base.real)),
      );
      // Awaited below; handled here too, so a failure while the walk still runs is not unhandled.
      searching.catch(() => undefined);
      try {
        if (statLocated(base).isDirectory()) {
          const walk = await collectFiles(base.real, {
            signal: ctx.signal,
            skipDirs: skippedDirs(input.glob, input.path),
            secrets,
            maxDepth: Number.POSITIVE_INFINITY,
            maxEntries: MAX_WALK_ENTRIES,
            hidden: namesHidden(input.glob, input.path),
            onFile: keep,
          });
          capped = walk.capped;
          ignored = walk.ignored;
        } else {
          files.push(base.real);
          feed.push(base.real);
        }
      } finally {
        feed.end();
      }
      await searching;
      const output = summarize(input, tally, capped, ignored, displayPath(ctx.cwd, base.real));
      return { isError: false, output, details: { hits: tally.hits } };
    },
    presentCall: (input, ctx) => searchCallIntent(grepTitle(input, ctx)),
    presentResult: (input, result, ctx) => searchResultIntent(grepTitle(input, ctx), result),
  };
}

function compile(pattern: string, ignoreCase: boolean): RegExp {
  if (pattern === "") throw new InvalidInputError("pattern is empty");
  try {
    return new RegExp(pattern, ignoreCase ? "i" : "");
  } catch (error) {
    const reason = errorMessage(error).replace(/^Invalid regular expression:\s*/i, "");
    throw new InvalidInputError(`invalid regular expression /${pattern}/: ${reason}`);
  }
}

/**
 * Adds one batch's matches to the tally, in file order; false once the cap is reached. A file
 * whose opened path is not one grep may read (a link swapped in after the walk) counts as
 * unreadable: its results are dropped.
 */
function merge(
  report: BatchReport,
  first: number,
  files: readonly string[],
  tally: Tally,
  cwd: string,
  guard: FileGuard,
): boolean {
  const moved = new Map(report.moved.map((entry) => [entry.file, entry.opened]));
  const searched = new Set<number>();
  const { status: statuses } = report;
  for (let file = 0; file < statuses.length; file++) {
    const status = statuses[file];
    if (status === FileStatus.unread) continue;
    const opened = moved.get(file) ?? files[first + file] ?? "";
    if (!mayRead(opened, identityAt(report.identity, file), guard)) continue;
    if (status === FileStatus.tooLarge) tally.tooLarge++;
    else if (status === FileStatus.searched) {
      tally.searched++;
      searched.add(file);
    }
  }
  let shown: { file: number; path: string; display: string } | undefined;
  for (const match of report.matches) {
    if (!searched.has(match.file)) continue;
    if (tally.lines.length >= MAX_GREP_MATCHES) return false;
    if (shown?.file !== match.file) {
      const path = files[first + match.file] ?? "";
      shown = { file: match.file, path, display: displayPath(cwd, path) };
    }
    tally.lines.push(`${shown.display}:${match.line}:${match.text}`);
    tally.hits.push({ path: shown.path, line: match.line });
  }
  return tally.lines.length < MAX_GREP_MATCHES;
}

/** The device, inode and link count of the batch's `file`, as the worker's fstat saw them. */
function identityAt(identity: BigUint64Array, file: number): FileIdentity {
  const at = file * 3;
  return {
    dev: identity[at] ?? 0n,
    ino: identity[at + 1] ?? 0n,
    nlink: identity[at + 2] ?? 0n,
    isFile: isRegular,
  };
}

/** The worker reports identities of regular files only. */
const isRegular = () => true;

/** What every file a search reads is checked against (see `mayRead`). */
interface FileGuard {
  readonly secrets: SecretSnapshot;
  /** The searched directory (a real, normalised path), and it with a trailing `/`. */
  readonly root: string;
  readonly prefix: string;
}

function guardOf(secrets: SecretSnapshot, root: string): FileGuard {
  return { secrets, root, prefix: root.endsWith("/") ? root : `${root}/` };
}

/**
 * The opened file (its real path and identity, as the worker saw them) is no secret place, by
 * path or by device and inode, and lies inside the searched directory.
 */
function mayRead(opened: string, identity: FileIdentity, guard: FileGuard): boolean {
  const real = opened.endsWith(" (deleted)") ? opened.slice(0, -" (deleted)".length) : opened;
  if (real !== guard.root && !real.startsWith(guard.prefix)) return false;
  return guard.secrets.match(real, identity) === undefined;
}

function summarize(
  input: GrepInput,
  tally: Tally,
  walkCapped: boolean,
  ignored: number,
  where: string,
): string {
  const out = [...tally.lines];
  if (out.length === 0) {
    const files = tally.searched === 1 ? "1 file" : `${tally.searched} files`;
    out.push(`No matches for /${input.pattern}/ in ${where} (${files} searched)`);
  }
  if (tally.lines.length >= MAX_GREP_MATCHES) {
    out.push(
      `[stopped at ${MAX_GREP_MATCHES} matches; narrow the pattern, path or glob for the rest]`,
    );
  }
  if (tally.tooLarge > 0) {
    const files = tally.tooLarge === 1 ? "1 file" : `${tally.tooLarge} files`;
    out.push(`[skipped ${files} over ${formatBytes(MAX_FILE_BYTES)}]`);
  }
  if (ignored > 0) out.push(ignoredNote(ignored));
  if (walkCapped)
    out.push(
      `[the search stopped after ${MAX_WALK_ENTRIES} entries; some files were not searched]`,
    );
  return out.join("\n");
}

function grepTitle(input: GrepInput, ctx: { readonly cwd: string }): string {
  const title = searchTitle(
    "Grep",
    `/${input.pattern}/${input.ignore_case === true ? "i" : ""}`,
    input.path,
    ctx,
  );
  return input.glob === undefined ? title : `${title} (${input.glob})`;
}
