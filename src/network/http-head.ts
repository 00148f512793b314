/**
 * The head of an HTTP/1.x message, read strictly: a request line or status line, then header
 * lines, up to the empty line. Anything unusual (obsolete line folding, a bare LF, a header name
 * with characters RFC 9110 does not allow) is an error rather than a guess.
 *
 * The proxy only reads where a request wants to go and rewrites the hop-by-hop headers; it
 * always connects to the destination its policy checked, so a head another parser would read
 * differently can at worst confuse that one allowed server, never reach another.
 */
import type { ParseStep } from "./socket-reader.ts";

export interface HttpHead {
  /** The first line's three parts: method, target, version (or version, status, reason). */
  readonly start: readonly [string, string, string];
  readonly headers: readonly (readonly [string, string])[];
}

/** Heads longer than this are refused. */
export const HEAD_LIMIT = 64 * 1024;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) (HTTP\/1\.[01])$/;
const STATUS_LINE = /^(HTTP\/1\.[01]) (\d{3})(?: (.*))?$/;

/** Parses a request head (`kind: "request"`) or a response head from the start of `buffer`. */
export function parseHead(buffer: Buffer, kind: "request" | "response"): ParseStep<HttpHead> {
  const end = buffer.indexOf("\r\n\r\n");
  if (end === -1) return "more";
  const text = buffer.subarray(0, end).toString("latin1");
  const lines = text.split("\r\n");
  const first = lines[0] ?? "";
  const match = (kind === "request" ? REQUEST_LINE : STATUS_LINE).exec(first);
  if (match === null) return { error: `not an HTTP/1.x ${kind} line: ${first.slice(0, 80)}` };
  const headers: [string, string][] = [];
  for (const line of lines.slice(1)) {
    if (line.includes("\n") || line.includes("\r")) return { error: "a bare CR or LF in the head" };
    const colon = line.indexOf(":");
    const name = colon === -1 ? "" : line.slice(0, colon);
    if (!TOKEN.test(name)) return { error: `not a header line: ${line.slice(0, 80)}` };
    headers.push([name, line.slice(colon + 1).trim()]);
  }
  return {
    value: { start: [match[1] ?? "", match[2] ?? "", match[3] ?? ""], headers },
    used: end + 4,
  };
}

/** The value of header `name` (case-insensitive), the first when repeated. */
export function headerValue(head: HttpHead, name: string): string | undefined {
  const lower = name.toLowerCase();
  return head.headers.find(([key]) => key.toLowerCase() === lower)?.[1];
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) plus those the `Connection` header names. */
function hopByHop(head: HttpHead): Set<string> {
  const names = new Set([
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "proxy-authenticate",
    "te",
    "upgrade",
  ]);
  for (const [key, value] of head.headers) {
    if (key.toLowerCase() !== "connection") continue;
    for (const token of value.split(",")) names.add(token.trim().toLowerCase());
  }
  // The body passes through as it came, so its framing headers stay as they came.
  names.delete("transfer-encoding");
  names.delete("content-length");
  return names;
}

/**
 * The head re-serialised with `start` as its first line, the hop-by-hop headers dropped,
 * `extra` headers added and `Connection: close`: one message per connection through the proxy.
 */
export function rewriteHead(
  head: HttpHead,
  start: string,
  extra: readonly (readonly [string, string])[] = [],
): Buffer {
  const dropped = hopByHop(head);
  const kept = head.headers.filter(([key]) => !dropped.has(key.toLowerCase()));
  const lines = [start, ...[...kept, ...extra].map(([key, value]) => `${key}: ${value}`)];
  return Buffer.from(`${lines.join("\r\n")}\r\nConnection: close\r\n\r\n`, "latin1");
}
