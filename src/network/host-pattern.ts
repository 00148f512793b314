/**
 * The entries of `[network] allow` and `deny`, and of saved host rules: a host name, `*.` and
 * a domain (its subdomains, not the domain itself), `*` (every host), or an IP address, each
 * optionally with `:port` (that port only; without one, every port).
 */
import { type IpAddress, sameAddress } from "./address.ts";
import { type Host, hostText, parseHost, splitHostPort } from "./host.ts";

export type HostPattern =
  | { readonly type: "any"; readonly port?: number }
  | { readonly type: "name"; readonly name: string; readonly port?: number }
  | { readonly type: "subdomains"; readonly domain: string; readonly port?: number }
  | { readonly type: "address"; readonly address: IpAddress; readonly port?: number };

/** The pattern `text` spells, or a message saying what is wrong with it. */
export function parseHostPattern(text: string): HostPattern | { readonly error: string } {
  const { host, port } = splitHostPort(text.trim());
  if (Number.isNaN(port)) return { error: `"${text}": the port must be a number from 1 to 65535` };
  const withPort = port === undefined ? {} : { port };
  if (host === "*") return { type: "any", ...withPort };
  if (host.startsWith("*.")) {
    const domain = parseHost(host.slice(2));
    if (domain?.kind !== "name")
      return { error: `"${text}": "*." must be followed by a domain name` };
    return { type: "subdomains", domain: domain.name, ...withPort };
  }
  if (host.includes("*")) {
    return { error: `"${text}": a wildcard may only be a whole leading label ("*.example.com")` };
  }
  const parsed = parseHost(host);
  if (parsed === undefined) return { error: `"${text}" is neither a host name nor an IP address` };
  return parsed.kind === "name"
    ? { type: "name", name: parsed.name, ...withPort }
    : { type: "address", address: parsed.address, ...withPort };
}

/** Whether `pattern` covers `host` on `port`. Address patterns match only that address. */
export function patternMatches(pattern: HostPattern, host: Host, port: number): boolean {
  if (pattern.port !== undefined && pattern.port !== port) return false;
  switch (pattern.type) {
    case "any":
      return true;
    case "name":
      return host.kind === "name" && host.name === pattern.name;
    case "subdomains":
      return host.kind === "name" && host.name.endsWith(`.${pattern.domain}`);
    case "address":
      return host.kind === "address" && sameAddress(host.address, pattern.address);
    default: {
      const unhandled: never = pattern;
      return unhandled;
    }
  }
}

/** Whether `pattern` names `address` itself (not a name or `*` that happens to cover it). */
export function patternNamesAddress(
  pattern: HostPattern,
  address: IpAddress,
  port: number,
): boolean {
  return pattern.type === "address" && patternMatches(pattern, { kind: "address", address }, port);
}

/** The pattern as the config would spell it. */
export function patternText(pattern: HostPattern): string {
  const port = pattern.port === undefined ? "" : `:${pattern.port}`;
  switch (pattern.type) {
    case "any":
      return `*${port}`;
    case "name":
      return `${pattern.name}${port}`;
    case "subdomains":
      return `*.${pattern.domain}${port}`;
    case "address": {
      const text = hostText({ kind: "address", address: pattern.address });
      // A bare IPv6 address without a port needs no brackets, but they never hurt.
      return `${text}${port}`;
    }
    default: {
      const unhandled: never = pattern;
      return unhandled;
    }
  }
}
