/**
 * A test destination for the proxy: a real `Bun.serve` on a loopback address that records
 * every request it gets (its log is what proves a refused connection never arrived), with a
 * redirect route and a large body on request.
 */
export interface TargetServer extends AsyncDisposable {
  readonly host: string;
  readonly port: number;
  /** `host:port`. */
  readonly authority: string;
  /** Request paths in arrival order. */
  readonly log: string[];
  /** Headers of each request, in the same order. */
  readonly headers: Headers[];
}

/**
 * Serves on `host` (a loopback address other than 127.0.0.1, which `NO_PROXY` leaves to the
 * sandbox's own loopback). `/redirect?to=URL` answers 302 to URL; `/bytes?n=N` sends N bytes;
 * `/echo` sends back the request body; anything else answers `hello from HOST PATH`.
 */
export function startTarget(host = "127.0.0.2"): TargetServer {
  const log: string[] = [];
  const headers: Headers[] = [];
  const server = Bun.serve({
    hostname: host,
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      log.push(url.pathname + url.search);
      headers.push(request.headers);
      if (url.pathname === "/redirect") {
        return new Response(null, {
          status: 302,
          headers: { location: url.searchParams.get("to") ?? "/" },
        });
      }
      if (url.pathname === "/bytes") {
        const size = Number(url.searchParams.get("n") ?? 0);
        return new Response(new Uint8Array(size).fill(120));
      }
      if (url.pathname === "/echo") return new Response(await request.arrayBuffer());
      return new Response(`hello from ${host} ${url.pathname}\n`);
    },
  });
  const port = server.port ?? 0;
  return {
    host,
    port,
    authority: host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`,
    log,
    headers,
    async [Symbol.asyncDispose]() {
      await server.stop(true);
    },
  };
}
