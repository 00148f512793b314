/**
 * The web tools a composition offers, from the `[web]` settings: `web_fetch` always, and
 * `web_search` only with a backend (with `search = "off"` it is not in the request at all).
 * The set is fixed when dsh starts, so the tool list stays the same bytes on every request.
 */
import type { NetworkAccess } from "../network/types.ts";
import type { WebSettings } from "../web/config.ts";
import { deepSeekSearch } from "../web/deepseek-api.ts";
import { searxngSearch } from "../web/searxng.ts";
import type { SearchBackend } from "../web/types.ts";
import type { AnyTool } from "./types.ts";
import { createWebFetchTool } from "./web-fetch.ts";
import { createWebSearchTool } from "./web-search.ts";

export interface WebToolsDeps {
  readonly settings: WebSettings;
  /** The access the sandbox's proxy uses. */
  readonly network: NetworkAccess;
  /** The model endpoint's key now (DeepSeek's APIs take the same one). */
  readonly apiKey: () => string | undefined;
  /** `fetch` through the environment's proxy and CAs, for the DeepSeek and SearXNG APIs. */
  readonly fetch: typeof fetch;
  /** `User-Agent` of direct fetches. */
  readonly userAgent: string;
  /** The certificates HTTPS trusts when extra CAs are set (as the model endpoint's requests). */
  readonly ca?: () => Promise<readonly string[] | undefined>;
}

/** `web_fetch`, then `web_search` when a backend is configured. */
export function createWebTools(deps: WebToolsDeps): AnyTool[] {
  const { settings } = deps;
  const deepseek = {
    origin: settings.deepseekOrigin,
    apiKey: deps.apiKey,
    fetch: deps.fetch,
    timeoutMs: settings.timeoutMs,
  };
  const backend: SearchBackend | undefined =
    settings.search === "deepseek"
      ? deepSeekSearch(deepseek)
      : settings.search === "searxng" && settings.searxngUrl !== undefined
        ? searxngSearch({
            url: settings.searxngUrl,
            fetch: deps.fetch,
            timeoutMs: settings.timeoutMs,
          })
        : undefined;
  return [
    createWebFetchTool({
      network: deps.network,
      mode: settings.fetch,
      timeoutMs: settings.timeoutMs,
      deepseek,
      userAgent: deps.userAgent,
      ...(deps.ca === undefined ? {} : { ca: deps.ca }),
    }),
    ...(backend === undefined ? [] : [createWebSearchTool(backend)]),
  ];
}
