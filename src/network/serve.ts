/**
 * One client connection to the proxy. The first byte tells the protocol: 5 is a SOCKS5
 * greeting (`socks5h://`, names resolved here), anything else an HTTP request: `CONNECT
 * host:port` opens a tunnel (TLS passes through untouched), and a request with an absolute
 * `http://` URI is forwarded, one request per connection. Every destination goes through the
 * command's access first; a refusal answers at once with the reason.
 */
import type { Socket } from "node:net";
import { type HostPort, parseHost, splitHostPort } from "./host.ts";
import { HEAD_LIMIT, type HttpHead, parseHead, rewriteHead } from "./http-head.ts";
import { readSocksRequest, socksFailure, socksReply, SOCKS_OK } from "./socks5.ts";
import { createSocketReader, type SocketReader } from "./socket-reader.ts";
import type { CommandAccess, RefusalKind } from "./types.ts";
import { connectFirst, splice } from "./upstream.ts";

/** Serves `client` to its end; never throws. */
export async function serveConnection(
  client: Socket,
  access: CommandAccess,
  signal: AbortSignal,
): Promise<void> {
  client.on("error", () => client.destroy());
  const reader = createSocketReader(client);
  try {
    const first = await reader.next((buffer) => ({ value: buffer[0] ?? 0, used: 0 }), 1);
    if (first === 5) await serveSocks(client, reader, access, signal);
    else await serveHttp(client, reader, access, signal);
  } catch {
    client.destroy();
  }
}

async function serveHttp(
  client: Socket,
  reader: SocketReader,
  access: CommandAccess,
  signal: AbortSignal,
): Promise<void> {
  let head: HttpHead;
  try {
    head = await reader.next((buffer) => parseHead(buffer, "request"), HEAD_LIMIT);
  } catch (error) {
    return reply(client, 400, `${error instanceof Error ? error.message : String(error)}`);
  }
  const [method, target, version] = head.start;
  const destination = method === "CONNECT" ? authorityOf(target) : absoluteTarget(target);
  if ("error" in destination) return reply(client, 400, destination.error);
  const reach = await access.reach(destination.target, signal);
  if (!reach.ok) return reply(client, refusalStatus(reach.kind), reach.reason);
  const upstream = await connectFirst(reach.addresses, destination.target.port, signal);
  if (!upstream.ok) return reply(client, 502, `cannot connect to ${target}: ${upstream.message}`);
  if (method === "CONNECT") {
    client.write(`${version} 200 Connection established\r\n\r\n`);
    await splice(client, upstream.socket, reader.release());
    return;
  }
  const path = destination.path ?? "/";
  const authority = destination.authority ?? target;
  const withoutHost: HttpHead = {
    ...head,
    headers: head.headers.filter(([key]) => key.toLowerCase() !== "host"),
  };
  upstream.socket.write(
    rewriteHead(withoutHost, `${method} ${path} ${version}`, [["Host", authority]]),
  );
  await spliceResponse(client, upstream.socket, reader.release());
}

/**
 * Pipes a forwarded request's body up and the response down, with the response's head told
 * the connection closes after it (the proxy serves one request per connection).
 */
async function spliceResponse(client: Socket, upstream: Socket, rest: Buffer): Promise<void> {
  const down = createSocketReader(upstream);
  // The request body goes up while the response head is read.
  if (rest.length > 0) upstream.write(rest);
  client.pipe(upstream);
  let head: HttpHead;
  try {
    head = await down.next((buffer) => parseHead(buffer, "response"), HEAD_LIMIT);
  } catch {
    client.destroy();
    upstream.destroy();
    return;
  }
  client.unpipe(upstream);
  client.write(rewriteHead(head, head.start.filter((part) => part !== "").join(" ")));
  await splice(upstream, client, down.release());
}

async function serveSocks(
  client: Socket,
  reader: SocketReader,
  access: CommandAccess,
  signal: AbortSignal,
): Promise<void> {
  const request = await readSocksRequest(client, reader);
  if (request === undefined) return;
  if ("failure" in request) {
    client.end(socksReply(request.failure));
    return;
  }
  const reach = await access.reach(request.target, signal);
  if (!reach.ok) {
    client.end(socksReply(socksFailure(reach.kind)));
    return;
  }
  const upstream = await connectFirst(reach.addresses, request.target.port, signal);
  if (!upstream.ok) {
    client.end(socksReply(socksFailure(upstream.code)));
    return;
  }
  client.write(socksReply(SOCKS_OK));
  await splice(client, upstream.socket, reader.release());
}

type Destination =
  | { readonly target: HostPort; readonly path?: string; readonly authority?: string }
  | { readonly error: string };

/** `host:port` of a CONNECT request (the port is required). */
function authorityOf(text: string): Destination {
  const { host, port } = splitHostPort(text);
  if (port === undefined || Number.isNaN(port)) {
    return { error: `CONNECT needs host:port with a port from 1 to 65535, not ${text}` };
  }
  const parsed = parseHost(host);
  if (parsed === undefined) return { error: `not a host name or IP address: ${host}` };
  return { target: { host: parsed, port } };
}

/** The destination, origin-form path and authority of an absolute `http://` request target. */
function absoluteTarget(text: string): Destination {
  if (!/^http:\/\//i.test(text)) {
    return {
      error: /^https:\/\//i.test(text)
        ? "https:// URLs go through CONNECT: this is dsh's proxy"
        : `this is dsh's proxy: a request must name an absolute http:// URL, not ${text.slice(0, 80)}`,
    };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: `not a URL: ${text.slice(0, 80)}` };
  }
  if (url.username !== "" || url.password !== "") {
    return { error: "credentials in a proxied URL are refused" };
  }
  const parsed = parseHost(url.hostname);
  if (parsed === undefined) return { error: `not a host name or IP address: ${url.hostname}` };
  const port = url.port === "" ? 80 : Number(url.port);
  return {
    target: { host: parsed, port },
    path: `${url.pathname}${url.search}`,
    authority: url.host,
  };
}

function refusalStatus(kind: RefusalKind): number {
  switch (kind) {
    case "denied":
    case "not_allowed":
    case "address":
      return 403;
    case "unresolved":
      return 502;
    case "invalid":
      return 400;
    default: {
      const unhandled: never = kind;
      return unhandled;
    }
  }
}

const REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  403: "Forbidden",
  502: "Bad Gateway",
};

/** Answers with `status` and `text` as a plain-text body, then closes. */
function reply(client: Socket, status: number, text: string): void {
  const body = `dsh proxy: ${text}\n`;
  client.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
