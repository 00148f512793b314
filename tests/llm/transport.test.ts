/** Which proxy dsh's own requests take, by the environment's variables and NO_PROXY. */
import { describe, expect, test } from "bun:test";
import { bypasses, createTransport } from "../../src/llm/transport.ts";

describe("proxyFor", () => {
  const env = { HTTPS_PROXY: "http://proxy.corp:3128", http_proxy: "http://plain.corp:8080" };

  test("the scheme's variable names the proxy, lower case before upper case", () => {
    const transport = createTransport({ ...env, HTTP_PROXY: "http://ignored:1" });
    expect(transport.proxyFor("https://api.deepseek.com/chat/completions")).toEqual({
      url: "http://proxy.corp:3128",
      variable: "HTTPS_PROXY",
    });
    expect(transport.proxyFor("http://127.0.0.1:11434/v1")).toEqual({
      url: "http://plain.corp:8080",
      variable: "http_proxy",
    });
    expect(createTransport({}).proxyFor("https://api.deepseek.com")).toBeUndefined();
  });

  test("NO_PROXY sends a listed host direct", () => {
    const transport = createTransport({ ...env, NO_PROXY: "localhost, .internal,10.1.2.3" });
    expect(transport.proxyFor("https://models.internal/v1")).toBeUndefined();
    expect(transport.proxyFor("https://api.deepseek.com")).toBeDefined();
  });
});

describe("bypasses", () => {
  const cases: [noProxy: string, url: string, direct: boolean][] = [
    ["*", "https://anything.example", true],
    ["example.com", "https://example.com/x", true],
    ["example.com", "https://api.example.com/x", true],
    [".example.com", "https://api.example.com/x", true],
    ["*.example.com", "https://api.example.com/x", true],
    ["example.com", "https://notexample.com/x", false],
    ["127.0.0.1", "http://127.0.0.1:11434/v1", true],
    ["127.0.0.1", "http://127.0.0.2:11434/v1", false],
    ["localhost:11434", "http://localhost:11434/v1", true],
    ["localhost:11434", "http://localhost:8080/v1", false],
    ["[::1]", "http://[::1]:8080/", true],
    ["[::1]:8080", "http://[::1]:8081/", false],
    ["", "https://example.com", false],
    ["a.test,b.test", "https://b.test", true],
  ];
  test.each(cases)("NO_PROXY=%p, %p: direct %p", (noProxy, url, direct) => {
    expect(bypasses(noProxy, new URL(url))).toBe(direct);
  });
});

describe("extra CAs", () => {
  test("an unreadable CA file is reported, and a readable one is trusted beside the roots", async () => {
    const transport = createTransport({ SSL_CERT_FILE: "/nonexistent/ca.pem" });
    expect(transport.caFiles().map((file) => [file.variable, file.error !== undefined])).toEqual([
      ["SSL_CERT_FILE", true],
    ]);
    expect(await transport.options("https://example.com")).toEqual({});
  });
});
