/**
 * The `[web]` table: web_search's backend defaults to DeepSeek's on DeepSeek's endpoint and to
 * none elsewhere, SearXNG needs its address, and a bad value is an error naming the choices.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/app/config.ts";

const dir = mkdtempSync(join(tmpdir(), "dsh-web-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function web(toml: string, env: Record<string, string> = {}) {
  const path = join(dir, `config-${files++}.toml`);
  writeFileSync(path, toml);
  return loadConfig({ HOME: dir, DSH_CONFIG: path, ...env }).web;
}

describe("[web]", () => {
  test("without the table: DeepSeek's search on DeepSeek's endpoint, none elsewhere; direct fetches, 30 s", () => {
    expect(web("")).toEqual({
      search: "deepseek",
      fetch: "direct",
      deepseekOrigin: "https://api.deepseek.com",
      timeoutMs: 30_000,
    });
    expect(web("", { DSH_BASE_URL: "http://127.0.0.1:11434/v1" })).toEqual({
      search: "off",
      fetch: "direct",
      deepseekOrigin: "http://127.0.0.1:11434",
      timeoutMs: 30_000,
    });
  });

  test("every key, with SearXNG's address kept without its trailing slash", () => {
    expect(
      web(
        '[web]\nsearch = "searxng"\nsearxng_url = "http://127.0.0.1:8888/"\nfetch = "deepseek"\ntimeout = 5\n',
      ),
    ).toEqual({
      search: "searxng",
      searxngUrl: "http://127.0.0.1:8888",
      fetch: "deepseek",
      deepseekOrigin: "https://api.deepseek.com",
      timeoutMs: 5_000,
    });
  });

  test("a bad value, SearXNG without an address or an unknown key is an error that says so", () => {
    const message = (toml: string) => {
      try {
        web(toml);
        return "no error";
      } catch (error) {
        return error instanceof ConfigError ? error.message : String(error);
      }
    };
    expect(message('[web]\nsearch = "google"\n')).toContain(
      'unknown web search backend "google" (deepseek, searxng, off)',
    );
    expect(message('[web]\nsearch = "searxng"\n')).toContain(
      'search = "searxng" needs searxng_url, the address of your SearXNG (http://127.0.0.1:8888)',
    );
    expect(message('[web]\nsearxng_url = "ftp://x"\n')).toContain(
      "searxng_url must be an http or https URL",
    );
    expect(message("[web]\nfetcher = 1\n")).toContain("fetcher");
  });
});
