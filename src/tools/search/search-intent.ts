/** How glob and grep present themselves: kind `search`, with the first hits as locations. */
import * as path from "node:path";
import { displayPath } from "../display-path.ts";
import type { Location, RenderIntent } from "../../render/intent.ts";
import type { PresentContext, ToolResult } from "../types.ts";

/** Hits carried in a search result's details, first ones first. */
export interface SearchDetails {
  readonly hits: readonly Location[];
  /** How many files matched in all (glob's, which keeps only the newest as hits). */
  readonly total?: number;
}

/** Locations an editor can follow, at most this many per result. */
const MAX_LOCATIONS = 20;

/** `Glob **\/*.ts in src`, `Grep /TODO/ in src (*.ts)`. */
export function searchTitle(
  verb: string,
  what: string,
  where: string | undefined,
  ctx: PresentContext,
): string {
  const place =
    where === undefined ? "" : ` in ${displayPath(ctx.cwd, path.resolve(ctx.cwd, where))}`;
  return `${verb} ${what}${place}`;
}

/** The call's intent: a titled search with no text yet. */
export function searchCallIntent(title: string): RenderIntent {
  return { type: "generic", kind: "search", title };
}

/** The result's intent: the tool's output as text, and its first hits as locations. */
export function searchResultIntent(title: string, result: ToolResult<SearchDetails>): RenderIntent {
  const hits = result.details?.hits.slice(0, MAX_LOCATIONS) ?? [];
  const summary = result.details === undefined ? undefined : summaryOf(result.details);
  return {
    type: "generic",
    kind: "search",
    title,
    text: result.output,
    ...(summary === undefined ? {} : { summary }),
    ...(hits.length > 0 ? { locations: hits } : {}),
  };
}

/** `12 matches in 3 files` for grep's lines, `7 files` for glob's files (which give a total). */
function summaryOf(details: SearchDetails): string {
  const count = (n: number, noun: string, plural: string) => `${n} ${n === 1 ? noun : plural}`;
  if (details.total !== undefined) return count(details.total, "file", "files");
  const files = new Set(details.hits.map((hit) => hit.path)).size;
  return `${count(details.hits.length, "match", "matches")} in ${count(files, "file", "files")}`;
}
