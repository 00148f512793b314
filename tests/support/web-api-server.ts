/**
 * A model endpoint that also speaks DeepSeek's Search and Fetch APIs, for tests: a real
 * `Bun.serve` on 127.0.0.1 that answers `POST /v1/tools/search` and `/v1/tools/fetch` from a
 * queue of scripted answers (recording each call) and passes every other request through to a
 * scripted model server, so dsh finds both at one origin, as it does at DeepSeek's.
 */
import type { ModelServer } from "./model-server.ts";

/** One scripted answer of a tools API: a status and a JSON body. */
export interface ToolsAnswer {
  readonly status?: number;
  readonly json: unknown;
}

/** A call dsh made to a tools API. */
export interface ToolsCall {
  readonly api: "search" | "fetch";
  readonly authorization: string | null;
  readonly body: unknown;
}

export interface WebApiServer extends AsyncDisposable {
  /** The origin to give dsh as its base URL. */
  readonly url: string;
  /** Queues answers for calls to `api`, used in order. */
  answer(api: "search" | "fetch", ...answers: ToolsAnswer[]): void;
  readonly calls: readonly ToolsCall[];
}

/** Starts the server in front of `model`; dispose it with `await using`. */
export function startWebApiServer(model: ModelServer): WebApiServer {
  const queues = { search: [] as ToolsAnswer[], fetch: [] as ToolsAnswer[] };
  const calls: ToolsCall[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const api = /^\/v1\/tools\/(search|fetch)$/.exec(url.pathname)?.[1] as
        | "search"
        | "fetch"
        | undefined;
      if (api !== undefined && request.method === "POST") {
        const text = await request.text();
        calls.push({
          api,
          authorization: request.headers.get("authorization"),
          body: JSON.parse(text),
        });
        const answer = queues[api].shift();
        if (answer === undefined) {
          return Response.json(
            { error: { message: `mock: no ${api} answer left` } },
            { status: 500 },
          );
        }
        return Response.json(answer.json, { status: answer.status ?? 200 });
      }
      const headers = new Headers(request.headers);
      headers.delete("host");
      return fetch(`${model.url}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: request.method === "GET" ? undefined : await request.arrayBuffer(),
        signal: request.signal,
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    answer: (api, ...answers) => void queues[api].push(...answers),
    calls,
    async [Symbol.asyncDispose]() {
      await server.stop(true);
    },
  };
}
