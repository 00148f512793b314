/**
 * `grep`: lines matching a JavaScript regular expression, searched by dsh itself. It does not
 * shell out to ripgrep, so results do not depend on what is installed. Measured: about 0.27 s
 * for 3,700 files / 31 MB (a warm `node_modules`), several times slower than rg on huge trees.
 * Files are read here and matched in a worker thread (see `grep-matcher.ts`): a pathological
 * regex is stopped by the turn's cancel or by the time budget, and never blocks the process.
 */
import * as path from "node:path";
import * as v from "valibot";
import { InvalidInputError, errorMessage } from "../errors.ts";
import { displayPath } from "./containment.ts";
import type { SecretPlaces } from "./credential-paths.ts";
import { MAX_FILE_BYTES, formatBytes, looksBinary, openRegularFile } from "./file-io.ts";
import { MATCH_BUDGET_MS, createLineMatcher } from "./grep-matcher.ts";
import type { LineMatcher } from "./grep-matcher.ts";
import type { Location } from "./intent.ts";
import type { ReadGuard } from "./opened-path.ts";
import { resolveForRead, statLocated } from "./paths.ts";
import { snapshotSecrets } from "./secret-identity.ts";
import { searchCallIntent, searchResultIntent, searchTitle } from "./search-intent.ts";
import type { SearchDetails } from "./search-intent.ts";
import type { Tool, ToolContext, ToolResult } from "./types.ts";
import { skippedDirs, walkFiles } from "./walk.ts";

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
      `path:line:text, at most ${MAX_GREP_MATCHES}. Skips binary files, files over 2 MiB, .git and node_modules.`,
    input: GrepInput,
    async execute(input, ctx): Promise<ToolResult<SearchDetails>> {
      const regex = compile(input.pattern, input.ignore_case === true);
      const secrets = snapshotSecrets(deps.secrets);
      const base = resolveForRead(ctx.cwd, input.path ?? ".", secrets);
      const filter =
        input.glob === undefined || input.glob === "" ? undefined : new Bun.Glob(input.glob);
      const byPath = input.glob?.includes("/") === true;
      const tally: Tally = { lines: [], hits: [], searched: 0, tooLarge: 0 };
      using matcher = createLineMatcher({
        regex,
        pattern: input.pattern,
        lineChars: MAX_GREP_LINE_CHARS,
        budgetMs: deps.matchBudgetMs ?? MATCH_BUDGET_MS,
        signal: ctx.signal,
      });
      const search = createBatchedSearch(matcher, tally, ctx, { secrets, within: base.real });
      let capped = false;
      if (statLocated(base).isDirectory()) {
        const walk = await walkFiles(
          base.real,
          {
            signal: ctx.signal,
            skipDirs: skippedDirs(input.glob, input.path),
            secrets,
            maxDepth: Number.POSITIVE_INFINITY,
            maxEntries: MAX_WALK_ENTRIES,
          },
          async (entry) => {
            if (entry.isSymlink) return "continue";
            if (
              filter !== undefined &&
              !filter.match(byPath ? entry.relative : path.basename(entry.relative))
            ) {
              return "continue";
            }
            return (await search.add(entry.absolute)) ? "continue" : "stop";
          },
        );
        capped = walk.capped;
      } else {
        await search.add(base.real);
      }
      await search.finish();
      const output = summarize(input, tally, capped, displayPath(ctx.cwd, base.real));
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

/** Files read at once: overlapping reads is most of grep's speed on a cold or large tree. */
const READ_AHEAD = 16;

/** A file read for searching; `bytes` is undefined when it is binary, unreadable or too large. */
interface ReadFile {
  readonly file: string;
  readonly bytes: Uint8Array | undefined;
  readonly tooLarge: boolean;
}

/**
 * Searches files READ_AHEAD at a time and merges their matches in walk order. The worker
 * matches one batch while the next is read. `add` resolves false once the match cap is
 * reached; `finish` waits for the last batch.
 */
function createBatchedSearch(
  matcher: LineMatcher,
  tally: Tally,
  ctx: ToolContext,
  guard: ReadGuard,
) {
  let batch: string[] = [];
  // The previous batch's match and merge: true while the cap is not reached.
  let matching: Promise<boolean> = Promise.resolve(true);
  const merge = async (read: readonly ReadFile[]): Promise<boolean> => {
    const searched = read.filter((file) => file.bytes !== undefined);
    const found = await matcher.match(
      searched.map((file) => file.bytes ?? new Uint8Array()),
      MAX_GREP_MATCHES - tally.lines.length,
    );
    tally.tooLarge += read.filter((file) => file.tooLarge).length;
    tally.searched += searched.length;
    for (const [index, { file }] of searched.entries()) {
      const shown = displayPath(ctx.cwd, file);
      for (const match of found[index] ?? []) {
        if (tally.lines.length >= MAX_GREP_MATCHES) return false;
        tally.lines.push(`${shown}:${match.line}:${match.text}`);
        tally.hits.push({ path: file, line: match.line });
      }
    }
    return tally.lines.length < MAX_GREP_MATCHES;
  };
  const flush = async (): Promise<boolean> => {
    const files = batch;
    batch = [];
    ctx.signal.throwIfAborted();
    const read = await Promise.all(files.map((file) => readForSearch(file, guard)));
    if (!(await matching)) return false;
    matching = merge(read);
    // Awaited by the next flush or by finish; handled here so a rejection meanwhile is not
    // reported as unhandled.
    matching.catch(() => {});
    return true;
  };
  return {
    add: async (file: string): Promise<boolean> => {
      batch.push(file);
      return batch.length < READ_AHEAD ? true : flush();
    },
    finish: async (): Promise<void> => {
      if (await flush()) await matching;
    },
  };
}

/** A file's bytes; binary, unreadable and huge files have none. */
async function readForSearch(file: string, guard: ReadGuard): Promise<ReadFile> {
  const none = { file, bytes: undefined, tooLarge: false };
  let bytes: Uint8Array;
  try {
    await using opened = await openRegularFile(file, file, guard);
    if (opened.size > MAX_FILE_BYTES) return { ...none, tooLarge: true };
    const read = await opened.read(MAX_FILE_BYTES);
    if (!read.complete) return { ...none, tooLarge: true };
    bytes = read.bytes;
  } catch {
    return none;
  }
  if (looksBinary(bytes)) return none;
  return { file, bytes, tooLarge: false };
}

function summarize(input: GrepInput, tally: Tally, walkCapped: boolean, where: string): string {
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
