/**
 * For a tool that fetches a URL itself (rather than through the proxy): a `lookup` for
 * `node:net`, `node:tls`, `node:http(s)` options that answers every lookup with the addresses
 * `NetworkAccess` checked, and nothing else, so the connection goes where the check went while
 * TLS still verifies the host name.
 */
import type { LookupFunction } from "node:net";
import type { IpAddress } from "./address.ts";

/** A lookup that resolves any name to `addresses` (the first, or all when asked for all). */
export function checkedLookup(addresses: readonly IpAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const [first] = addresses;
    if (first === undefined) {
      const error: NodeJS.ErrnoException = new Error("no checked address to connect to");
      error.code = "ENOTFOUND";
      callback(error, "", 4);
      return;
    }
    if (typeof options === "object" && options.all === true) {
      const all = addresses.map((address) => ({ address: address.text, family: address.family }));
      (callback as unknown as (error: null, all: { address: string; family: number }[]) => void)(
        null,
        all,
      );
      return;
    }
    callback(null, first.text, first.family);
  };
}
