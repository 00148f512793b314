/**
 * A SearXNG instance as a `web_search` backend: `GET {url}/search?q=…&format=json`, whose
 * answer is `{results: [{title, url, content, publishedDate}]}`. The instance is the user's own
 * choice (`[web] searxng_url`), so it is asked directly, without the host policy; its JSON
 * output must be enabled (`search.formats` in its settings), which a 403 usually means it is not.
 */
import * as v from "valibot";
import { describeFetchFailure } from "../llm/http-errors.ts";
import type { SearchBackend, SearchHit } from "./types.ts";

export interface SearxngDeps {
  /** The instance's base URL, without a trailing slash. */
  readonly url: string;
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
}

const Answer = v.looseObject({
  results: v.array(
    v.looseObject({
      title: v.optional(v.nullable(v.string())),
      url: v.string(),
      content: v.optional(v.nullable(v.string())),
      publishedDate: v.optional(v.nullable(v.string())),
    }),
  ),
});

/** The backend over the instance at `deps.url`. */
export function searxngSearch(deps: SearxngDeps): SearchBackend {
  return {
    name: "SearXNG",
    paid: false,
    async search(query, count, signal) {
      const url = `${deps.url}/search?${new URLSearchParams({ q: query, format: "json" })}`;
      const timer = AbortSignal.timeout(deps.timeoutMs);
      let response: Response;
      let text: string;
      try {
        response = await deps.fetch(url, {
          headers: { accept: "application/json" },
          signal: AbortSignal.any([signal, timer]),
        });
        text = await response.text();
      } catch (error) {
        if (signal.aborted) return { ok: false, message: "cancelled", cancelled: true };
        if (timer.aborted) {
          return failed(`SearXNG at ${deps.url} did not answer within ${deps.timeoutMs / 1000} s`);
        }
        return failed(
          `SearXNG at ${deps.url} could not be reached: ${describeFetchFailure(error)}`,
        );
      }
      if (response.status === 403) {
        return failed(
          `SearXNG at ${deps.url} refused the JSON format (HTTP 403); enable it with search.formats: [html, json] in its settings.yml`,
        );
      }
      if (!response.ok) return failed(`SearXNG at ${deps.url} answered HTTP ${response.status}`);
      let parsed: v.SafeParseResult<typeof Answer>;
      try {
        parsed = v.safeParse(Answer, JSON.parse(text));
      } catch {
        return failed(`SearXNG at ${deps.url} answered with something that is not JSON`);
      }
      if (!parsed.success) return failed(`SearXNG at ${deps.url} answered without a results list`);
      const hits: SearchHit[] = parsed.output.results.slice(0, count).map((result) => ({
        title: result.title?.trim() || result.url,
        url: result.url,
        snippet: (result.content ?? "").trim(),
        ...(result.publishedDate ? { date: result.publishedDate } : {}),
      }));
      return { ok: true, value: hits };
    },
  };
}

function failed(message: string): { ok: false; message: string } {
  return { ok: false, message };
}
