/** `[network]` entries: what each spelling means and which hosts and ports it covers. */
import { describe, expect, test } from "bun:test";
import { parseHost } from "../../src/network/host.ts";
import {
  type HostPattern,
  parseHostPattern,
  patternMatches,
  patternText,
} from "../../src/network/host-pattern.ts";
import { NetworkConfig } from "../../src/network/config.ts";
import * as v from "valibot";

function pattern(text: string): HostPattern {
  const parsed = parseHostPattern(text);
  if ("error" in parsed) throw new Error(parsed.error);
  return parsed;
}

describe("parseHostPattern", () => {
  const spellings: [string, string][] = [
    ["registry.npmjs.org", "registry.npmjs.org"],
    ["Registry.NPMJS.org.", "registry.npmjs.org"],
    ["*.pythonhosted.org", "*.pythonhosted.org"],
    ["github.com:443", "github.com:443"],
    ["127.0.0.1:8080", "127.0.0.1:8080"],
    ["127.1:8080", "127.0.0.1:8080"],
    ["[::1]:8080", "[::1]:8080"],
    ["::1", "[::1]"],
    ["[fd00:ec2::254]", "[fd00:ec2::254]"],
    ["*", "*"],
    ["*:443", "*:443"],
    ["bücher.de", "xn--bcher-kva.de"],
    ["  spaced.example  ", "spaced.example"],
  ];
  test.each(spellings)("%p reads as %p", (text, canonical) => {
    expect(patternText(pattern(text))).toBe(canonical);
  });

  const refused: [string, string][] = [
    ["example.com:0", "port"],
    ["example.com:65536", "port"],
    ["example.com:http", "port"],
    ["[::1]x", "port"],
    ["*example.com", "wildcard"],
    ["foo.*.com", "wildcard"],
    ["*.", "domain"],
    ["*.1.2.3.4", "domain"],
    ["exa mple.com", "neither"],
    ["user@example.com", "neither"],
    ["example.com/path", "neither"],
    ["", "neither"],
    ["-bad-.example", "neither"],
  ];
  test.each(refused)("%p is refused (%s)", (text, word) => {
    const parsed = parseHostPattern(text);
    expect("error" in parsed ? parsed.error : "").toContain(word);
  });

  test("the config schema refuses a bad entry with the entry and the reason", () => {
    const result = v.safeParse(NetworkConfig, { allow: ["ok.example", "*bad.example"] });
    expect(result.success ? "" : result.issues[0].message).toBe(
      '"*bad.example": a wildcard may only be a whole leading label ("*.example.com")',
    );
    expect(v.parse(NetworkConfig, {})).toEqual({ allow: [], deny: [] });
  });
});

describe("patternMatches", () => {
  const cases: [pattern: string, host: string, port: number, matches: boolean][] = [
    ["example.com", "example.com", 443, true],
    ["example.com", "EXAMPLE.com.", 80, true],
    ["example.com", "www.example.com", 443, false],
    ["example.com", "notexample.com", 443, false],
    ["*.example.com", "www.example.com", 443, true],
    ["*.example.com", "a.b.example.com", 443, true],
    ["*.example.com", "example.com", 443, false],
    ["*.example.com", "badexample.com", 443, false],
    ["*.example.com", "example.com.evil.test", 443, false],
    ["github.com:443", "github.com", 443, true],
    ["github.com:443", "github.com", 22, false],
    ["*", "anything.test", 1, true],
    ["*", "127.0.0.1", 80, true],
    ["*:443", "anything.test", 80, false],
    ["127.0.0.1:8080", "127.0.0.1", 8080, true],
    ["127.0.0.1:8080", "127.1", 8080, true],
    ["127.0.0.1:8080", "0x7f.0.0.1", 8080, true],
    ["127.0.0.1:8080", "2130706433", 8080, true],
    ["127.0.0.1:8080", "::ffff:127.0.0.1", 8080, true],
    ["127.0.0.1:8080", "127.0.0.1", 8081, false],
    ["127.0.0.1:8080", "127.0.0.2", 8080, false],
    ["127.0.0.1", "localhost", 8080, false],
    ["10.0.0.1", "012.0.0.1", 1, true],
    ["[::1]:8080", "0:0:0:0:0:0:0:1", 8080, true],
    ["::ffff:10.0.0.1", "10.0.0.1", 5, true],
    ["example.com", "1.2.3.4", 443, false],
  ];
  test.each(cases)("%p covers %p:%p: %p", (text, hostText, port, matches) => {
    const host = parseHost(hostText);
    if (host === undefined) throw new Error(`not a host: ${hostText}`);
    expect(patternMatches(pattern(text), host, port)).toBe(matches);
  });
});
