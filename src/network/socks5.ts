/**
 * SOCKS5 (RFC 1928) as far as tools need it: no authentication, CONNECT only, and addresses
 * as IPv4, IPv6 or a domain name (`socks5h://`, so names are resolved by the proxy, under its
 * rules). BIND and UDP ASSOCIATE are refused: there is no UDP out of the sandbox.
 */
import type { Socket } from "node:net";
import { type IpAddress, parseIpLiteral } from "./address.ts";
import { type HostPort, parseHost } from "./host.ts";
import type { ParseStep, SocketReader } from "./socket-reader.ts";
import type { RefusalKind } from "./types.ts";

/** SOCKS5 reply codes. */
export const SOCKS_OK = 0x00;
const GENERAL_FAILURE = 0x01;
const NOT_ALLOWED = 0x02;
const NETWORK_UNREACHABLE = 0x03;
const HOST_UNREACHABLE = 0x04;
const CONNECTION_REFUSED = 0x05;
const TTL_EXPIRED = 0x06;
const COMMAND_NOT_SUPPORTED = 0x07;
const ADDRESS_TYPE_NOT_SUPPORTED = 0x08;

const NO_AUTHENTICATION = 0x00;
const NO_ACCEPTABLE_METHOD = 0xff;

/**
 * Reads the greeting and the request (answering the method choice in between): the target,
 * a reply code to refuse with, or undefined when the client offered no usable method (it has
 * been told, and the connection is closed).
 */
export async function readSocksRequest(
  client: Socket,
  reader: SocketReader,
): Promise<{ readonly target: HostPort } | { readonly failure: number } | undefined> {
  const methods = await reader.next(parseGreeting, 258);
  if (!methods.includes(NO_AUTHENTICATION)) {
    client.end(Buffer.from([5, NO_ACCEPTABLE_METHOD]));
    return undefined;
  }
  client.write(Buffer.from([5, NO_AUTHENTICATION]));
  return await reader.next(parseRequest, 262);
}

function parseGreeting(buffer: Buffer): ParseStep<readonly number[]> {
  if (buffer.length < 2) return "more";
  const count = buffer[1] ?? 0;
  if (buffer.length < 2 + count) return "more";
  return { value: [...buffer.subarray(2, 2 + count)], used: 2 + count };
}

function parseRequest(
  buffer: Buffer,
): ParseStep<{ readonly target: HostPort } | { readonly failure: number }> {
  if (buffer.length < 5) return "more";
  if (buffer[0] !== 5) return { error: "not a SOCKS5 request" };
  const command = buffer[1];
  const type = buffer[3];
  let length: number;
  if (type === 1) length = 4;
  else if (type === 4) length = 16;
  else if (type === 3) length = 1 + (buffer[4] ?? 0);
  else return { value: { failure: ADDRESS_TYPE_NOT_SUPPORTED }, used: buffer.length };
  const end = 4 + length + 2;
  if (buffer.length < end) return "more";
  const port = buffer.readUInt16BE(4 + length);
  if (command !== 1) return { value: { failure: COMMAND_NOT_SUPPORTED }, used: end };
  const raw = buffer.subarray(4, 4 + length);
  const host =
    type === 3
      ? parseHost(raw.subarray(1).toString("latin1"))
      : addressHost(raw, type === 1 ? 4 : 6);
  if (host === undefined || port === 0) return { value: { failure: GENERAL_FAILURE }, used: end };
  return { value: { target: { host, port } }, used: end };
}

function addressHost(bytes: Buffer, family: 4 | 6) {
  const text =
    family === 4
      ? [...bytes].join(".")
      : Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16)).join(":");
  const address: IpAddress | undefined = parseIpLiteral(text);
  return address === undefined ? undefined : ({ kind: "address", address } as const);
}

/** The reply code for a refusal kind, or for a connect error's code. */
export function socksFailure(reason: RefusalKind | string): number {
  switch (reason) {
    case "denied":
    case "not_allowed":
    case "address":
      return NOT_ALLOWED;
    case "unresolved":
    case "EHOSTUNREACH":
      return HOST_UNREACHABLE;
    case "ENETUNREACH":
      return NETWORK_UNREACHABLE;
    case "ECONNREFUSED":
      return CONNECTION_REFUSED;
    case "ETIMEDOUT":
      return TTL_EXPIRED;
    default:
      return GENERAL_FAILURE;
  }
}

/** A reply with `code`; the bound address is left as 0.0.0.0:0 (clients do not use it). */
export function socksReply(code: number): Buffer {
  return Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}
