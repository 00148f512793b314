/**
 * The host policy of `[network]`: which hosts the config denies and allows. Deny wins over
 * allow. It knows nothing of saved rules or answers; `access.ts` adds those.
 */
import type { IpAddress } from "./address.ts";
import type { Host } from "./host.ts";
import {
  type HostPattern,
  parseHostPattern,
  patternMatches,
  patternNamesAddress,
} from "./host-pattern.ts";
import type { NetworkConfig } from "./config.ts";

export interface HostPolicy {
  readonly allow: readonly HostPattern[];
  readonly deny: readonly HostPattern[];
}

/** The policy of a validated `[network]` table (entries that do not parse are skipped). */
export function hostPolicyOf(config: NetworkConfig | undefined): HostPolicy {
  return {
    allow: patternsOf(config?.allow ?? []),
    deny: patternsOf(config?.deny ?? []),
  };
}

/** Parses entries; the config schema has already refused those that do not parse. */
export function patternsOf(texts: readonly string[]): HostPattern[] {
  return texts.flatMap((text) => {
    const parsed = parseHostPattern(text);
    return "error" in parsed ? [] : [parsed];
  });
}

/** The first of `patterns` covering `host` on `port`. */
export function matchingPattern(
  patterns: readonly HostPattern[],
  host: Host,
  port: number,
): HostPattern | undefined {
  return patterns.find((pattern) => patternMatches(pattern, host, port));
}

/** The first of `patterns` that names `address` itself. */
export function patternNamingAddress(
  patterns: readonly HostPattern[],
  address: IpAddress,
  port: number,
): HostPattern | undefined {
  return patterns.find((pattern) => patternNamesAddress(pattern, address, port));
}
