/**
 * web_fetch's questions under each approval policy, through the real tool context and approval
 * seam: `on-request` asks with the host named, `never` refuses without asking, and under
 * `danger-full-access` a name is not asked about while the address rules still hold. URLs
 * that are no http(s), or carry credentials, are refused before anything is asked.
 */
import { describe, expect, test } from "bun:test";
import { type IpAddress, parseIpLiteral } from "../../src/network/address.ts";
import { createNetworkAccess } from "../../src/network/access.ts";
import { hostPolicyOf } from "../../src/network/policy.ts";
import { PRESETS } from "../../src/permission/knobs.ts";
import { createToolRegistry } from "../../src/tools/registry.ts";
import { createWebFetchTool } from "../../src/tools/web-fetch.ts";
import { recordingAnswerer, toolContext } from "../tools/harness.ts";
import { site } from "../support/web-site.ts";

/** A registry holding web_fetch over an access whose names resolve by `dns` only. */
function registry(allow: string[], dns: Record<string, string> = {}) {
  const access = createNetworkAccess({
    policy: hostPolicyOf({ allow, deny: [] }),
    savedHosts: () => [],
    resolve: async (name) => {
      const address = dns[name];
      if (address === undefined) throw new Error("ENOTFOUND");
      return [parseIpLiteral(address) as IpAddress];
    },
  });
  return createToolRegistry([
    createWebFetchTool({
      network: access,
      mode: "direct",
      timeoutMs: 5_000,
      deepseek: { origin: "http://127.0.0.1:9", apiKey: () => undefined, fetch, timeoutMs: 1 },
      userAgent: "dsh-test",
    }),
  ]);
}

describe("web_fetch's question about a host", () => {
  test("on-request: asked with the host, the URL and the host rule an always would save; a deny refuses", async () => {
    await using page = site("127.0.0.4");
    const answerer = recordingAnswerer("deny");
    const url = `${page.origin}/x`;
    const { result } = await registry([]).execute(
      "web_fetch",
      JSON.stringify({ url }),
      toolContext("/tmp", { answerers: [answerer] }),
    );
    expect(answerer.requests.map((r) => [r.kind, r.title, r.reason, r.subject])).toEqual([
      [
        "network",
        `Let web_fetch connect to 127.0.0.4:${page.port} for ${url}`,
        "127.0.0.4 is a loopback address (a service on this machine)",
        { type: "host", host: "127.0.0.4", port: page.port },
      ],
    ]);
    expect(result.isError).toBe(true);
    expect(page.log).toEqual([]);
  });

  test("never: refused without asking anyone", async () => {
    await using page = site("127.0.0.4");
    const answerer = recordingAnswerer("allow");
    const { result } = await registry([]).execute(
      "web_fetch",
      JSON.stringify({ url: `${page.origin}/x` }),
      toolContext("/tmp", {
        answerers: [answerer],
        knobs: { sandboxMode: "workspace-write", approvalPolicy: "never" },
      }),
    );
    expect(answerer.requests).toEqual([]);
    expect(result.output).toBe(
      `${page.origin}/x was refused: 127.0.0.4:${page.port} is not allowed: the approval policy ` +
        "never asks, and neither [network] allow nor a saved rule lists it",
    );
  });

  test("danger-full-access: a name is not asked about, and what it resolves to is still checked", async () => {
    await using page = site("127.0.0.5");
    const answerer = recordingAnswerer("allow");
    const context = () =>
      toolContext("/tmp", { answerers: [answerer], knobs: PRESETS["danger-full-access"] });
    const url = `http://docs.test:${page.port}/x`;
    const dns = { "docs.test": "127.0.0.5" };
    const refused = await registry([], dns).execute(
      "web_fetch",
      JSON.stringify({ url }),
      context(),
    );
    expect(refused.result.output).toBe(
      `${url} was refused: docs.test resolves to 127.0.0.5, a loopback address (a service on this ` +
        "machine), which is reached only when allowed by address; a name that resolves there is " +
        "refused unless that address itself is allowed",
    );
    const allowed = await registry([`127.0.0.5:${page.port}`], dns).execute(
      "web_fetch",
      JSON.stringify({ url }),
      context(),
    );
    expect(allowed.result.output.split("\n")[0]).toBe(`URL: ${url}`);
    expect(answerer.requests).toEqual([]);
    expect(page.log).toEqual(["/x"]);
  });
});

describe("URLs refused before anything is asked", () => {
  test("another scheme, credentials in the URL, or no URL at all", async () => {
    const answerer = recordingAnswerer("allow");
    const outputs = [];
    for (const url of ["file:///etc/passwd", "http://user:secret@127.0.0.1/", "http://"]) {
      const { result } = await registry(["*"]).execute(
        "web_fetch",
        JSON.stringify({ url }),
        toolContext("/tmp", { answerers: [answerer] }),
      );
      outputs.push(result.output);
    }
    expect(outputs).toEqual([
      "file: URLs are not fetched; web_fetch reads http and https only",
      "a URL with a user name or password in it is not fetched",
      '"http://" is not a URL',
    ]);
    expect(answerer.requests).toEqual([]);
  });

  test("a bare host and path means https", async () => {
    const answerer = recordingAnswerer("deny");
    const { result } = await registry([]).execute(
      "web_fetch",
      JSON.stringify({ url: "docs.example.com/guide" }),
      toolContext("/tmp", { answerers: [answerer] }),
    );
    expect(answerer.requests.map((request) => request.title)).toEqual([
      "Let web_fetch connect to docs.example.com:443 for https://docs.example.com/guide",
    ]);
    expect(result.isError).toBe(true);
  });
});
