/**
 * DeepSeek's Search and Fetch APIs (`POST /v1/tools/search`, `POST /v1/tools/fetch`), called
 * with the model endpoint's key. Search takes `{query, count}` (operators such as `site:` go
 * in the query) and answers `{results: [{title, url, snippet, summary, date, ...}]}`; Fetch
 * takes `{url}` and answers `{title, content}` with the page as Markdown. Errors come in the
 * OpenAI-style envelope (`{error: {message, type, code}}`): 401 a bad key, 402 an empty
 * balance, 429 too many requests. DeepSeek bills each call that returns something.
 */
import * as v from "valibot";
import { describeFetchFailure } from "../llm/http-errors.ts";
import { readServerError } from "../llm/wire.ts";
import type { FetchedByApi, SearchBackend, SearchHit, WebCall } from "./types.ts";

/** What DeepSeek charges for one Search or Fetch call that returned something, in USD. */
export const COST_PER_CALL_USD = 0.00075;

/** The longest snippet kept per result; DeepSeek's summaries run to 800 characters. */
const MAX_SNIPPET_CHARS = 800;

export interface DeepSeekApiDeps {
  /** The endpoint's origin (`https://api.deepseek.com`). */
  readonly origin: string;
  /** The API key now; undefined when none is set. */
  readonly apiKey: () => string | undefined;
  /** `fetch` through the environment's proxy and CAs. */
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
}

const SearchAnswer = v.looseObject({
  results: v.optional(
    v.nullable(
      v.array(
        v.looseObject({
          title: v.optional(v.nullable(v.string())),
          url: v.string(),
          snippet: v.optional(v.nullable(v.string())),
          summary: v.optional(v.nullable(v.string())),
          date: v.optional(v.nullable(v.string())),
        }),
      ),
    ),
  ),
});

const FetchAnswer = v.looseObject({
  title: v.optional(v.nullable(v.string())),
  content: v.string(),
});

/** The Search API as a `web_search` backend. */
export function deepSeekSearch(deps: DeepSeekApiDeps): SearchBackend {
  return {
    name: "DeepSeek Search",
    paid: true,
    async search(query, count, signal) {
      const answer = await call(deps, "search", { query, count }, signal);
      if (!answer.ok) return answer;
      const parsed = v.safeParse(SearchAnswer, answer.value);
      if (!parsed.success) return unexpected("search");
      const hits: SearchHit[] = (parsed.output.results ?? []).map((result) => ({
        title: result.title?.trim() || result.url,
        url: result.url,
        snippet: clip((result.summary || result.snippet || "").trim()),
        ...(result.date ? { date: result.date } : {}),
      }));
      return { ok: true, value: hits };
    },
  };
}

/** The Fetch API: the page at `url` as Markdown. */
export async function deepSeekFetch(
  deps: DeepSeekApiDeps,
  url: string,
  signal: AbortSignal,
): Promise<WebCall<FetchedByApi>> {
  const answer = await call(deps, "fetch", { url }, signal);
  if (!answer.ok) return answer;
  const parsed = v.safeParse(FetchAnswer, answer.value);
  if (!parsed.success) return unexpected("fetch");
  return {
    ok: true,
    value: { title: parsed.output.title?.trim() ?? "", content: parsed.output.content },
  };
}

/** POSTs `body` to `/v1/tools/{api}` and parses the JSON answer; never throws. */
async function call(
  deps: DeepSeekApiDeps,
  api: "search" | "fetch",
  body: Record<string, unknown>,
  signal: AbortSignal,
): Promise<WebCall<unknown>> {
  const what = api === "search" ? "DeepSeek's Search API" : "DeepSeek's Fetch API";
  const key = deps.apiKey();
  if (key === undefined) {
    return failed(`${what} needs an API key: run dsh login, or set DSH_API_KEY`);
  }
  const url = `${deps.origin}/v1/tools/${api}`;
  const timer = AbortSignal.timeout(deps.timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await deps.fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.any([signal, timer]),
    });
    text = await response.text();
  } catch (error) {
    if (signal.aborted) return { ok: false, message: "cancelled", cancelled: true };
    if (timer.aborted) return failed(`${what} did not answer within ${deps.timeoutMs / 1000} s`);
    return failed(`${what} could not be reached at ${deps.origin}: ${describeFetchFailure(error)}`);
  }
  if (!response.ok) return failed(statusMessage(what, response.status, text, key));
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return failed(`${what} answered with something that is not JSON`);
  }
}

/** A failed answer in words a user can act on, with the server's own explanation. */
function statusMessage(what: string, status: number, text: string, key: string): string {
  const detail = serverDetail(text, key);
  const said = detail === "" ? "" : `: ${detail}`;
  switch (status) {
    case 401:
    case 403:
      return `${what} rejected the API key (HTTP ${status})${said}; check DSH_API_KEY or run dsh login`;
    case 402:
      return `${what} refused the call: the account is out of balance (HTTP 402)${said}; top it up at https://platform.deepseek.com`;
    case 429:
      return `${what} is rate limiting calls (HTTP 429)${said}; wait a moment before the next one`;
    default:
      return status >= 500
        ? `${what} failed (HTTP ${status})${said}; try again later`
        : `${what} refused the call (HTTP ${status})${said}`;
  }
}

/** The server's message from its error body (never a copy of the key), on one line. */
function serverDetail(text: string, key: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const message = readServerError(parsed)?.message ?? (/^\s*</.test(text) ? "" : text);
  const line = message.replaceAll(key, "[key]").replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function clip(text: string): string {
  return text.length > MAX_SNIPPET_CHARS ? `${text.slice(0, MAX_SNIPPET_CHARS - 1)}…` : text;
}

function failed(message: string): { ok: false; message: string } {
  return { ok: false, message };
}

function unexpected(api: string): { ok: false; message: string } {
  return failed(
    `DeepSeek's ${api === "search" ? "Search" : "Fetch"} API answered in a shape dsh does not know`,
  );
}
