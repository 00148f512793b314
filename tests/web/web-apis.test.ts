/**
 * The web APIs against local servers that speak their shapes: DeepSeek's Search and Fetch
 * (`POST /v1/tools/search|fetch`, bearer key, OpenAI-style error bodies for 401, 402 and 429,
 * empty results) and SearXNG's JSON search.
 */
import { describe, expect, test } from "bun:test";
import { deepSeekFetch, deepSeekSearch } from "../../src/web/deepseek-api.ts";
import { searxngSearch } from "../../src/web/searxng.ts";

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly authorization: string | null;
  readonly body: unknown;
}

/** A server whose one answer is `respond`; every request is recorded. */
function api(respond: (request: Request) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const text = await request.text();
      seen.push({
        method: request.method,
        path: url.pathname,
        query: url.search,
        authorization: request.headers.get("authorization"),
        body: text === "" ? undefined : JSON.parse(text),
      });
      return respond(request);
    },
  });
  return {
    origin: `http://127.0.0.1:${server.port}`,
    seen,
    async [Symbol.asyncDispose]() {
      await server.stop(true);
    },
  };
}

const signal = () => new AbortController().signal;

const deepseek = (origin: string, key: { value?: string } = { value: "sk-test" }) => ({
  origin,
  apiKey: () => key.value,
  fetch,
  timeoutMs: 5_000,
});

const error = (status: number, message: string, type: string) =>
  Response.json({ error: { message, type, param: null, code: null } }, { status });

describe("DeepSeek's Search API", () => {
  test("sends the query and count with the key, and reads title, URL, summary and date", async () => {
    await using server = api(() =>
      Response.json({
        results: [
          {
            title: "Vec in std::vec - Rust",
            url: "https://doc.rust-lang.org/std/vec/struct.Vec.html",
            snippet: "A contiguous growable array type.",
            summary: "A contiguous growable array type, written as Vec<T>, short for vector.",
            content: "",
            rerank_score: 2.4,
            authority: 3,
            date: "2026-10-20T08:00:00Z",
            site_name: "Rust",
          },
          { title: null, url: "https://example.com/x", snippet: "only a snippet", date: null },
        ],
      }),
    );
    const found = await deepSeekSearch(deepseek(server.origin)).search(
      "vec site:doc.rust-lang.org",
      3,
      signal(),
    );
    expect(found).toEqual({
      ok: true,
      value: [
        {
          title: "Vec in std::vec - Rust",
          url: "https://doc.rust-lang.org/std/vec/struct.Vec.html",
          snippet: "A contiguous growable array type, written as Vec<T>, short for vector.",
          date: "2026-10-20T08:00:00Z",
        },
        { title: "https://example.com/x", url: "https://example.com/x", snippet: "only a snippet" },
      ],
    });
    expect(server.seen).toEqual([
      {
        method: "POST",
        path: "/v1/tools/search",
        query: "",
        authorization: "Bearer sk-test",
        body: { query: "vec site:doc.rust-lang.org", count: 3 },
      },
    ]);
  });

  test("empty results are an empty list", async () => {
    await using server = api(() => Response.json({ results: [] }));
    expect(await deepSeekSearch(deepseek(server.origin)).search("zzqx", 5, signal())).toEqual({
      ok: true,
      value: [],
    });
  });

  test("401, 402 and 429 say what to do, with the server's words and never the key", async () => {
    const answers = [
      error(
        401,
        "Authentication Fails, Your api key: ****-test is invalid",
        "authentication_error",
      ),
      error(402, "Insufficient Balance", "unknown_error"),
      error(429, "Rate limit reached for requests", "rate_limit_error"),
      error(500, "sk-test broke", "server_error"),
    ];
    await using server = api(() => answers.shift() ?? error(500, "none left", "server_error"));
    const search = deepSeekSearch(deepseek(server.origin));
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await search.search("q", 5, signal()));
    expect(results).toEqual([
      {
        ok: false,
        message:
          "DeepSeek's Search API rejected the API key (HTTP 401): Authentication Fails, Your api key: ****-test is invalid; check DSH_API_KEY or run dsh login",
      },
      {
        ok: false,
        message:
          "DeepSeek's Search API refused the call: the account is out of balance (HTTP 402): Insufficient Balance; top it up at https://platform.deepseek.com",
      },
      {
        ok: false,
        message:
          "DeepSeek's Search API is rate limiting calls (HTTP 429): Rate limit reached for requests; wait a moment before the next one",
      },
      {
        ok: false,
        message: "DeepSeek's Search API failed (HTTP 500): [key] broke; try again later",
      },
    ]);
  });

  test("without a key nothing is sent", async () => {
    await using server = api(() => Response.json({ results: [] }));
    expect(await deepSeekSearch(deepseek(server.origin, {})).search("q", 5, signal())).toEqual({
      ok: false,
      message: "DeepSeek's Search API needs an API key: run dsh login, or set DSH_API_KEY",
    });
    expect(server.seen).toEqual([]);
  });

  test("an answer in another shape is an error, not an empty list", async () => {
    await using server = api(() => Response.json({ data: [{ link: "x" }], results: "none" }));
    expect(await deepSeekSearch(deepseek(server.origin)).search("q", 5, signal())).toEqual({
      ok: false,
      message: "DeepSeek's Search API answered in a shape dsh does not know",
    });
  });
});

describe("DeepSeek's Fetch API", () => {
  test("sends the URL and reads the title and the Markdown", async () => {
    await using server = api(() =>
      Response.json({
        title: "First call | DeepSeek API Docs",
        content: "# First call\n\nUse it.",
      }),
    );
    expect(
      await deepSeekFetch(deepseek(server.origin), "https://api-docs.deepseek.com/", signal()),
    ).toEqual({
      ok: true,
      value: { title: "First call | DeepSeek API Docs", content: "# First call\n\nUse it." },
    });
    expect(server.seen.map((seen) => [seen.path, seen.body])).toEqual([
      ["/v1/tools/fetch", { url: "https://api-docs.deepseek.com/" }],
    ]);
  });

  test("a page DeepSeek could not fetch is its error, in its words", async () => {
    await using server = api(() => error(404, "markdown not found", "invalid_request_error"));
    expect(await deepSeekFetch(deepseek(server.origin), "https://x.test/", signal())).toEqual({
      ok: false,
      message: "DeepSeek's Fetch API refused the call (HTTP 404): markdown not found",
    });
  });
});

describe("SearXNG", () => {
  test("asks /search with format=json and keeps the first `count` results", async () => {
    await using server = api(() =>
      Response.json({
        query: "bun test",
        results: [
          {
            title: "bun test",
            url: "https://bun.sh/docs/cli/test",
            content: "Bun ships with a fast test runner.",
            publishedDate: "2026-01-02T00:00:00",
            engine: "duckduckgo",
          },
          { title: "", url: "https://example.com/b", content: null },
          { title: "third", url: "https://example.com/c", content: "c" },
        ],
      }),
    );
    const found = await searxngSearch({ url: server.origin, fetch, timeoutMs: 5_000 }).search(
      "bun test",
      2,
      signal(),
    );
    expect(found).toEqual({
      ok: true,
      value: [
        {
          title: "bun test",
          url: "https://bun.sh/docs/cli/test",
          snippet: "Bun ships with a fast test runner.",
          date: "2026-01-02T00:00:00",
        },
        { title: "https://example.com/b", url: "https://example.com/b", snippet: "" },
      ],
    });
    expect(server.seen.map((seen) => [seen.method, seen.path, seen.query])).toEqual([
      ["GET", "/search", "?q=bun+test&format=json"],
    ]);
  });

  test("a 403 says the JSON format is off, with the setting that turns it on", async () => {
    await using server = api(() => new Response("Forbidden", { status: 403 }));
    const found = await searxngSearch({ url: server.origin, fetch, timeoutMs: 5_000 }).search(
      "q",
      5,
      signal(),
    );
    expect(found).toEqual({
      ok: false,
      message: `SearXNG at ${server.origin} refused the JSON format (HTTP 403); enable it with search.formats: [html, json] in its settings.yml`,
    });
  });
});
