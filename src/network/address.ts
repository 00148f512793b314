/**
 * IP addresses as the proxy sees them: parsed from any spelling a client may send (`127.1`,
 * `0x7f.1`, `2130706433`, `[::ffff:127.0.0.1]`), and classified, so that a loopback, private,
 * link-local, CGNAT, metadata or other special address is known as such whatever its form. An
 * IPv6 address that carries an IPv4 address (mapped, compatible, translated, NAT64, 6to4) counts
 * as that IPv4 address.
 *
 * Spellings are read by the WHATWG URL host parser (the one browsers use, built into Bun), not
 * by code of our own; this module only turns its canonical output into bytes.
 */

/** One IP address: its family, its bytes (4 or 16) and its canonical text (IPv6 unbracketed). */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  readonly text: string;
}

/** What an address is, for the address rules; only `public` is reached without an allowance. */
export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "metadata"
  | "cgnat"
  | "unspecified"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "reserved";

/**
 * The address `text` spells, or undefined when it is no IP literal (a host name, or nothing
 * valid). Brackets around IPv6 are optional; zone ids (`fe80::1%eth0`) are not accepted.
 */
export function parseIpLiteral(text: string): IpAddress | undefined {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (bare.includes(":")) return parseIpv6(bare);
  // Only digits, dots and hex letters can spell an IPv4 address; anything else is a name.
  if (!/^[0-9a-fA-FxX.]+$/.test(bare)) return undefined;
  const host = urlHost(bare);
  return host === undefined ? undefined : ipv4FromDotted(host);
}

/** The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4, ...), if any. */
export function embeddedIpv4(address: IpAddress): IpAddress | undefined {
  if (address.family === 4) return undefined;
  const b = address.bytes;
  const zeros = (from: number, to: number) => b.slice(from, to).every((byte) => byte === 0);
  const tail = () => ipv4FromBytes(b.slice(12, 16));
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated).
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return tail();
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return tail();
  // ::a.b.c.d (compatible), except :: and ::1 themselves.
  if (zeros(0, 12) && !(zeros(12, 15) && (b[15] ?? 0) <= 1)) return tail();
  // 64:ff9b::a.b.c.d (NAT64's well-known prefix).
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return tail();
  // 2002:AABB:CCDD::/48 (6to4).
  if (b[0] === 0x20 && b[1] === 0x02) return ipv4FromBytes(b.slice(2, 6));
  return undefined;
}

/** The address that counts for the rules: the embedded IPv4 address when there is one. */
export function effectiveAddress(address: IpAddress): IpAddress {
  return embeddedIpv4(address) ?? address;
}

interface Range {
  readonly prefix: readonly number[];
  readonly bits: number;
  readonly kind: AddressClass;
}

// First match wins: the narrower ranges come before the wider ones that hold them.
const IPV4_RANGES: readonly Range[] = [
  { prefix: [169, 254, 169, 254], bits: 32, kind: "metadata" },
  // Azure's wire server: a public-looking address every Azure VM reaches.
  { prefix: [168, 63, 129, 16], bits: 32, kind: "metadata" },
  { prefix: [255, 255, 255, 255], bits: 32, kind: "broadcast" },
  { prefix: [0], bits: 8, kind: "unspecified" },
  { prefix: [10], bits: 8, kind: "private" },
  { prefix: [100, 64], bits: 10, kind: "cgnat" },
  { prefix: [127], bits: 8, kind: "loopback" },
  { prefix: [169, 254], bits: 16, kind: "link-local" },
  { prefix: [172, 16], bits: 12, kind: "private" },
  { prefix: [192, 0, 0], bits: 24, kind: "reserved" },
  { prefix: [192, 0, 2], bits: 24, kind: "documentation" },
  { prefix: [192, 88, 99], bits: 24, kind: "reserved" },
  { prefix: [192, 168], bits: 16, kind: "private" },
  { prefix: [198, 18], bits: 15, kind: "reserved" },
  { prefix: [198, 51, 100], bits: 24, kind: "documentation" },
  { prefix: [203, 0, 113], bits: 24, kind: "documentation" },
  { prefix: [224], bits: 4, kind: "multicast" },
  { prefix: [240], bits: 4, kind: "reserved" },
];

const IPV6_RANGES: readonly Range[] = [
  {
    prefix: [0xfd, 0, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54],
    bits: 128,
    kind: "metadata",
  },
  { prefix: [0], bits: 127, kind: "unspecified" },
  { prefix: [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], bits: 48, kind: "private" },
  { prefix: [0x01, 0x00], bits: 64, kind: "reserved" },
  { prefix: [0x20, 0x01, 0x0d, 0xb8], bits: 32, kind: "documentation" },
  { prefix: [0x20, 0x01], bits: 23, kind: "reserved" },
  { prefix: [0xfc], bits: 7, kind: "private" },
  { prefix: [0xfe, 0x80], bits: 10, kind: "link-local" },
  { prefix: [0xfe, 0xc0], bits: 10, kind: "private" },
  { prefix: [0xff], bits: 8, kind: "multicast" },
  // Global unicast is 2000::/3; everything else is not handed out.
  { prefix: [0x20], bits: 3, kind: "public" },
];

/** What `address` is; an IPv6 address carrying an IPv4 address is what that one is. */
export function classify(address: IpAddress): AddressClass {
  const effective = effectiveAddress(address);
  if (effective.family === 4) return matchRange(effective.bytes, IPV4_RANGES) ?? "public";
  const bytes = effective.bytes;
  if (bytes.slice(0, 15).every((byte) => byte === 0) && bytes[15] === 1) return "loopback";
  return matchRange(bytes, IPV6_RANGES) ?? "reserved";
}

/** How a refusal names the class: "a loopback address". */
export function describeClass(kind: AddressClass): string {
  switch (kind) {
    case "public":
      return "a public address";
    case "loopback":
      return "a loopback address (a service on this machine)";
    case "private":
      return "a private network address";
    case "link-local":
      return "a link-local address";
    case "metadata":
      return "a cloud metadata address";
    case "cgnat":
      return "a carrier-grade NAT address";
    case "unspecified":
      return "the unspecified address";
    case "multicast":
      return "a multicast address";
    case "broadcast":
      return "the broadcast address";
    case "documentation":
      return "an address reserved for documentation";
    case "reserved":
      return "a reserved address";
    default: {
      const unhandled: never = kind;
      return unhandled;
    }
  }
}

/** True when both spell the same address (an embedded IPv4 address equals itself). */
export function sameAddress(a: IpAddress, b: IpAddress): boolean {
  return effectiveAddress(a).text === effectiveAddress(b).text;
}

function matchRange(bytes: Uint8Array, ranges: readonly Range[]): AddressClass | undefined {
  for (const range of ranges) {
    if (inPrefix(bytes, range.prefix, range.bits)) return range.kind;
  }
  return undefined;
}

function inPrefix(bytes: Uint8Array, prefix: readonly number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const left = Math.min(8, bits - bit);
    const mask = (0xff << (8 - left)) & 0xff;
    const index = bit / 8;
    if (((bytes[index] ?? 0) & mask) !== ((prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}

/** The URL parser's host for `text`, or undefined when it refuses it. */
function urlHost(text: string): string | undefined {
  try {
    return new URL(`http://${text}/`).hostname;
  } catch {
    return undefined;
  }
}

function parseIpv6(bare: string): IpAddress | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(bare)) return undefined;
  const host = urlHost(`[${bare}]`);
  if (host === undefined || !host.startsWith("[")) return undefined;
  const canonical = host.slice(1, -1);
  const [head = "", tail] = canonical.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const missing = 8 - front.length - back.length;
  const words = [...front, ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...back];
  if (words.length !== 8) return undefined;
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    const value = Number.parseInt(word, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return { family: 6, bytes, text: canonical };
}

function ipv4FromDotted(host: string): IpAddress | undefined {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
  return ipv4FromBytes(Uint8Array.from(parts.map(Number)));
}

function ipv4FromBytes(bytes: Uint8Array): IpAddress {
  return { family: 4, bytes, text: [...bytes].join(".") };
}
