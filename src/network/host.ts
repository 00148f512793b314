/**
 * Host names and IP literals as one normalised value: what a client asks for (a CONNECT
 * authority, an absolute URI's host, a SOCKS5 domain), what a `[network]` entry names, and
 * what a saved host rule holds. Names are lower-cased, IDNs are in their ASCII form and one
 * trailing dot is dropped, so one host has one spelling.
 */
import { type IpAddress, parseIpLiteral } from "./address.ts";

export type Host =
  | { readonly kind: "name"; readonly name: string }
  | { readonly kind: "address"; readonly address: IpAddress };

/** A host and the port asked for. */
export interface HostPort {
  readonly host: Host;
  readonly port: number;
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * The host `text` names, or undefined when it is neither a valid name nor an IP literal.
 * Characters a URL would read as something else (`/`, `@`, `%`, spaces) make it invalid, so
 * normalising never changes which host is meant.
 */
export function parseHost(text: string): Host | undefined {
  const address = parseIpLiteral(text);
  if (address !== undefined) return { kind: "address", address };
  if (text.length === 0 || text.length > 253 || /[\s/?#@\\%:[\]]/.test(text)) return undefined;
  let name: string;
  try {
    name = new URL(`http://${text}/`).hostname;
  } catch {
    return undefined;
  }
  if (name.endsWith(".")) name = name.slice(0, -1);
  // The URL parser read it as an address after all (`1.2.3.4.`): keep the address.
  const late = parseIpLiteral(name);
  if (late !== undefined) return { kind: "address", address: late };
  if (!name.split(".").every((label) => LABEL.test(label))) return undefined;
  return { kind: "name", name };
}

/** The host as text: the name, the IPv4 address, or the IPv6 address in brackets. */
export function hostText(host: Host): string {
  if (host.kind === "name") return host.name;
  return host.address.family === 6 ? `[${host.address.text}]` : host.address.text;
}

/** `host:port`, IPv6 in brackets. */
export function hostPortText(target: HostPort): string {
  return `${hostText(target.host)}:${target.port}`;
}

/**
 * Splits `host:port` (IPv6 in brackets; a bare IPv6 address has no port). The port is
 * undefined when absent and NaN when present but not a number from 1 to 65535.
 */
export function splitHostPort(text: string): { host: string; port: number | undefined } {
  if (text.startsWith("[")) {
    const end = text.indexOf("]");
    if (end === -1) return { host: text, port: undefined };
    const rest = text.slice(end + 1);
    if (rest === "") return { host: text.slice(0, end + 1), port: undefined };
    return {
      host: text.slice(0, end + 1),
      port: rest.startsWith(":") ? portOf(rest.slice(1)) : Number.NaN,
    };
  }
  const colons = text.split(":").length - 1;
  if (colons !== 1) return { host: text, port: undefined };
  const at = text.lastIndexOf(":");
  return { host: text.slice(0, at), port: portOf(text.slice(at + 1)) };
}

function portOf(text: string): number {
  if (!/^\d{1,5}$/.test(text)) return Number.NaN;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : Number.NaN;
}
