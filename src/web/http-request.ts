/**
 * One HTTP GET for `web_fetch`, made to the addresses the network access checked and to no
 * other (`node:http(s)` with a lookup that answers only those, so a name cannot resolve
 * somewhere else between the check and the connect, while TLS still verifies the name). The
 * body is read up to a bound and the connection closed there: a larger body is cut, never read
 * to its end. An abort (cancel, time limit) destroys the connection at once.
 */
import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import type { IpAddress } from "../network/address.ts";
import { checkedLookup } from "../network/checked-lookup.ts";

export interface GetRequest {
  readonly url: URL;
  /** The checked addresses, tried in order by the connection. */
  readonly addresses: readonly IpAddress[];
  readonly headers: Readonly<Record<string, string>>;
  /** The most body bytes kept (after decompression); past them the connection is closed. */
  readonly maxBytes: number;
  /** Certificates to trust instead of the defaults (the system's roots plus extra CAs). */
  readonly ca?: readonly string[];
  readonly signal: AbortSignal;
}

/** What came back: the status, the headers that matter, and the body (perhaps cut). */
export interface GetResponse {
  readonly status: number;
  readonly statusText: string;
  /** Lower-case header names; repeated headers joined by `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  /** True when the body went past `maxBytes` and was cut there. */
  readonly cut: boolean;
}

/**
 * Sends the request and reads the response.
 * @throws the connection's error, or the signal's reason once it aborts
 */
export async function getOnce(request: GetRequest): Promise<GetResponse> {
  const { url, signal } = request;
  signal.throwIfAborted();
  const client = url.protocol === "https:" ? await import("node:https") : await import("node:http");
  const { promise, resolve, reject } = Promise.withResolvers<GetResponse>();
  const req = client.request({
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port === "" ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: "GET",
    headers: request.headers,
    lookup: checkedLookup(request.addresses),
    ...(request.ca === undefined ? {} : { ca: [...request.ca] }),
    // A socket of its own: a pooled one may have been opened for another check.
    agent: false,
  });
  const onAbort = () => req.destroy(signal.reason instanceof Error ? signal.reason : undefined);
  signal.addEventListener("abort", onAbort, { once: true });
  req.on("error", (error) => reject(signal.aborted ? signal.reason : error));
  req.on("response", (response) => {
    readBody(response, request.maxBytes)
      .then(({ body, cut }) => {
        // Past the bound nothing more is read: the connection goes with the request.
        if (cut) req.destroy();
        resolve({
          status: response.statusCode ?? 0,
          statusText: response.statusMessage ?? "",
          headers: headersOf(response),
          body,
          cut,
        });
      })
      .catch((error: unknown) => reject(signal.aborted ? signal.reason : error));
  });
  req.end();
  try {
    return await promise;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

function headersOf(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

/** The body, decompressed, up to `maxBytes`; `cut` when there was more. */
async function readBody(
  response: IncomingMessage,
  maxBytes: number,
): Promise<{ body: Uint8Array; cut: boolean }> {
  const stream = await decoded(response);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Uint8Array>) {
    const room = maxBytes - total;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      total += room;
      stream.destroy();
      if (stream !== response) response.destroy();
      return { body: concat(chunks, total), cut: true };
    }
    chunks.push(chunk);
    total += chunk.length;
  }
  return { body: concat(chunks, total), cut: false };
}

/** The response's body stream, through the decompressor its `Content-Encoding` names. */
async function decoded(response: IncomingMessage): Promise<Readable> {
  const encoding = (response.headers["content-encoding"] ?? "").trim().toLowerCase();
  if (encoding === "" || encoding === "identity") return response;
  const zlib = await import("node:zlib");
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip()
      : encoding === "deflate"
        ? zlib.createInflate()
        : encoding === "br"
          ? zlib.createBrotliDecompress()
          : undefined;
  if (decoder === undefined) throw new Error(`the server sent an unknown encoding, ${encoding}`);
  response.on("error", (error) => decoder.destroy(error));
  return response.pipe(decoder);
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const body = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return body;
}

/** What `Accept-Encoding` offers: the encodings `getOnce` can decode. */
export const ACCEPTED_ENCODINGS = "gzip, deflate, br";
