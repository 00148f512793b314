/** The `[network]` table of the config file: hosts sandboxed commands may reach, and may not. */
import * as v from "valibot";
import { parseHostPattern } from "./host-pattern.ts";

const patternError = (text: string): string | undefined => {
  const parsed = parseHostPattern(text);
  return "error" in parsed ? parsed.error : undefined;
};

const HostPatternText = v.pipe(
  v.string(),
  v.check(
    (text) => patternError(text) === undefined,
    (issue) => patternError(String(issue.input)) ?? "not a host pattern",
  ),
);

/** `allow` and `deny`: host names (`*.` for subdomains, `*` for all), IP addresses, `:port`. */
export const NetworkConfig = v.strictObject({
  allow: v.optional(v.array(HostPatternText), []),
  deny: v.optional(v.array(HostPatternText), []),
});
export type NetworkConfig = v.InferOutput<typeof NetworkConfig>;
