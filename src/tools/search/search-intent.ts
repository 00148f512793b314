/** How glob and grep present themselves: kind `search`, with the first hits as locations. */
import * as path from "node:path";
import { displayPath } from "../display-path.ts";
import type { Location, RenderIntent } from "../../render/intent.ts";
import type { PresentContext, ToolResult } from "../types.ts";

/** Hits carried in a search result's details, first ones first. */
export interface SearchDetails {
  readonly hits: readonly Location[];
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
  return {
    type: "generic",
    kind: "search",
    title,
    text: result.output,
    ...(hits.length > 0 ? { locations: hits } : {}),
  };
}
