/**
 * Web pages for tests: a real `Bun.serve` on a loopback address whose routes answer by path
 * (anything else says where it is), recording each path it is asked for.
 */

export interface Site extends AsyncDisposable {
  /** `http://host:port`. */
  readonly origin: string;
  readonly port: number;
  /** Paths (with their query) in arrival order. */
  readonly log: string[];
}

/** A route's answer, from the request. */
export type Route = (request: Request) => Response | Promise<Response>;

/** Serves `routes` on `host`, port 0. */
export function site(host: string, routes: Record<string, Route> = {}): Site {
  const log: string[] = [];
  const server = Bun.serve({
    hostname: host,
    port: 0,
    idleTimeout: 0,
    fetch(request) {
      const url = new URL(request.url);
      log.push(url.pathname + url.search);
      const route = routes[url.pathname];
      return route === undefined ? new Response(`hello from ${host}`) : route(request);
    },
  });
  const port = server.port ?? 0;
  return {
    origin: `http://${host}:${port}`,
    port,
    log,
    async [Symbol.asyncDispose]() {
      await server.stop(true);
    },
  };
}

/** A route answering 302 to `to`. */
export const redirect = (to: string) => () =>
  new Response(null, { status: 302, headers: { location: to } });

/**
 * A route streaming `total` bytes of `text/plain` in 64 KiB chunks, made only as the client
 * reads them; `produced()` says how many were made, `closed` settles once the stream ended or
 * the client went away.
 */
export function hugeBody(total: number) {
  const chunk = new Uint8Array(64 * 1024).fill(97);
  let produced = 0;
  const closed = Promise.withResolvers<void>();
  const route: Route = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (produced >= total) {
            controller.close();
            closed.resolve();
            return;
          }
          produced += chunk.length;
          controller.enqueue(chunk);
        },
        cancel() {
          closed.resolve();
        },
      }),
      { headers: { "content-type": "text/plain" } },
    );
  return { route, produced: () => produced, closed: closed.promise };
}

/** A route that never answers; `arrived` settles when asked, `gone` when the client left. */
export function hangingRoute() {
  const arrived = Promise.withResolvers<void>();
  const gone = Promise.withResolvers<void>();
  const route: Route = (request) => {
    request.signal.addEventListener("abort", () => gone.resolve(), { once: true });
    arrived.resolve();
    return new Promise<Response>(() => {});
  };
  return { route, arrived: arrived.promise, gone: gone.promise };
}
