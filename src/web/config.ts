/**
 * The `[web]` table of the config file: which backend `web_search` uses (and whether it is
 * offered at all), how `web_fetch` fetches, and how long one call may take.
 */
import * as v from "valibot";
import { type ChoiceValue, defineChoice } from "../settings/choice.ts";

/** `web_search`'s backend: DeepSeek's Search API, the user's SearXNG, or no tool at all. */
export const WEB_SEARCH = defineChoice("web search backend", ["deepseek", "searxng", "off"], "off");
export type WebSearchBackend = ChoiceValue<typeof WEB_SEARCH>;

/** How `web_fetch` fetches: itself (and converts), or through DeepSeek's Fetch API. */
export const WEB_FETCH = defineChoice("web fetch mode", ["direct", "deepseek"], "direct");
export type WebFetchMode = ChoiceValue<typeof WEB_FETCH>;

/** Seconds one fetch or search may take when `[web] timeout` does not say. */
export const DEFAULT_WEB_TIMEOUT_S = 30;

const HttpUrl = v.pipe(
  v.string(),
  v.url("searxng_url must be a URL, such as http://127.0.0.1:8888"),
  v.check(
    (text) => /^https?:$/.test(new URL(text).protocol),
    "searxng_url must be an http or https URL",
  ),
);

export const WebConfig = v.pipe(
  v.strictObject({
    search: v.optional(
      v.picklist(WEB_SEARCH.values, (issue) => WEB_SEARCH.unknown(issue.received)),
    ),
    searxng_url: v.optional(HttpUrl),
    fetch: v.optional(v.picklist(WEB_FETCH.values, (issue) => WEB_FETCH.unknown(issue.received))),
    /** Seconds one fetch or search may take, the question about a host not counted. */
    timeout: v.optional(
      v.pipe(
        v.number(),
        v.minValue(1, "timeout must be from 1 to 300 seconds"),
        v.maxValue(300, "timeout must be from 1 to 300 seconds"),
      ),
    ),
  }),
  v.forward(
    v.check(
      (table) => table.search !== "searxng" || table.searxng_url !== undefined,
      'search = "searxng" needs searxng_url, the address of your SearXNG (http://127.0.0.1:8888)',
    ),
    ["searxng_url"],
  ),
);
export type WebConfig = v.InferOutput<typeof WebConfig>;

/** What the web tools do, with every default applied. */
export interface WebSettings {
  readonly search: WebSearchBackend;
  /** The SearXNG instance's base URL, without a trailing slash; set when `search` is `searxng`. */
  readonly searxngUrl?: string;
  readonly fetch: WebFetchMode;
  /** Where DeepSeek's Search and Fetch APIs are: the model endpoint's origin. */
  readonly deepseekOrigin: string;
  readonly timeoutMs: number;
}

/** Whether `baseUrl` is DeepSeek's own endpoint (not a gateway or a local server). */
export function isDeepSeekEndpoint(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === "api.deepseek.com";
  } catch {
    return false;
  }
}

/**
 * The settings of a validated `[web]` table. Without `search`, DeepSeek's endpoint gets
 * `deepseek` and any other endpoint none. DeepSeek's Search and Fetch APIs are called at the
 * model endpoint's origin, with its key: `api.deepseek.com` unless the user points dsh at a
 * gateway (or a local server) that offers them.
 */
export function webSettingsOf(table: WebConfig | undefined, baseUrl: string): WebSettings {
  const search = table?.search ?? (isDeepSeekEndpoint(baseUrl) ? "deepseek" : "off");
  return {
    search,
    ...(table?.searxng_url === undefined
      ? {}
      : { searxngUrl: table.searxng_url.replace(/\/+$/, "") }),
    fetch: table?.fetch ?? WEB_FETCH.default,
    deepseekOrigin: new URL(baseUrl).origin,
    timeoutMs: (table?.timeout ?? DEFAULT_WEB_TIMEOUT_S) * 1000,
  };
}
