/**
 * web_fetch's own fetching against real local servers, through the same network access as the
 * sandbox's proxy: each redirect hop is checked (a private or metadata address, or a name that
 * resolves to one, is refused before any connection), at most five redirects, connections go
 * to the checked addresses only, a large body is cut without being read to its end, and a time
 * limit or a cancel ends the fetch at once.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { type IpAddress, parseIpLiteral } from "../../src/network/address.ts";
import { createNetworkAccess } from "../../src/network/access.ts";
import { hostPolicyOf } from "../../src/network/policy.ts";
import type { HostQuestion } from "../../src/network/types.ts";
import { directFetch } from "../../src/web/direct-fetch.ts";
import { runIf } from "../support/gate.ts";
import { hangingRoute, hugeBody, redirect, site } from "../support/web-site.ts";

/** A fetch through an access with this policy; names resolve by `dns` only. */
function fetcher(options: {
  allow: string[];
  dns?: Record<string, string>;
  timeoutMs?: number;
  maxBytes?: number;
  ca?: string[];
}) {
  const asked: HostQuestion[] = [];
  const resolved: string[] = [];
  const access = createNetworkAccess({
    policy: hostPolicyOf({ allow: options.allow, deny: [] }),
    savedHosts: () => [],
    resolve: async (name) => {
      resolved.push(name);
      const address = options.dns?.[name];
      if (address === undefined) throw new Error("ENOTFOUND");
      return [parseIpLiteral(address) as IpAddress];
    },
  });
  return {
    asked,
    resolved,
    get: (url: string, signal = new AbortController().signal) => {
      const call = access.forRequester({
        label: url,
        ask: async (question) => {
          asked.push(question);
          return "deny";
        },
      });
      return directFetch({
        url: new URL(url),
        access: call,
        maxBytes: options.maxBytes ?? 1024 * 1024,
        timeoutMs: options.timeoutMs ?? 10_000,
        userAgent: "dsh-test",
        ...(options.ca === undefined ? {} : { ca: async () => options.ca }),
        signal,
      }).finally(() => call.close());
    },
  };
}

describe("every redirect hop is checked", () => {
  test("a redirect to a private or metadata address is refused before any connection", async () => {
    await using page = site("127.0.0.1", {
      "/private": redirect("http://10.0.0.7:8080/admin"),
      "/metadata": redirect("http://169.254.169.254/latest/meta-data/"),
    });
    // `*` allows every host, but no address that is not public unless named itself.
    const web = fetcher({ allow: [`127.0.0.1:${page.port}`, "*"] });
    const results = await Promise.all([
      web.get(`${page.origin}/private`),
      web.get(`${page.origin}/metadata`),
    ]);
    expect(results).toEqual([
      {
        ok: false,
        reason: "refused",
        message:
          `${page.origin}/private redirected to http://10.0.0.7:8080/admin, which was refused: ` +
          "10.0.0.7 is a private network address, which is reached only when allowed by address",
      },
      {
        ok: false,
        reason: "refused",
        message:
          `${page.origin}/metadata redirected to http://169.254.169.254/latest/meta-data/, which ` +
          "was refused: 169.254.169.254 is a cloud metadata address, which is reached only when allowed by address",
      },
    ]);
    expect(web.asked).toEqual([]);
  });

  test("a redirect to an allowed name that resolves to a loopback address is refused; allowing that address lets it through to it alone", async () => {
    await using internal = site("127.0.0.9");
    await using page = site("127.0.0.1", {
      "/hop": redirect(`http://internal.test:${internal.port}/secret`),
    });
    const dns = { "internal.test": "127.0.0.9" };
    const byName = fetcher({ allow: [`127.0.0.1:${page.port}`, "internal.test"], dns });
    expect(await byName.get(`${page.origin}/hop`)).toEqual({
      ok: false,
      reason: "refused",
      message:
        `${page.origin}/hop redirected to http://internal.test:${internal.port}/secret, which was ` +
        `refused: internal.test resolves to 127.0.0.9, a loopback address (a service on this machine), ` +
        "which is reached only when allowed by address; a name that resolves there is refused unless " +
        "that address itself is allowed",
    });
    expect(internal.log).toEqual([]);

    // The name resolves only in the access's own lookup: the connection goes where it checked.
    const byAddress = fetcher({
      allow: [`127.0.0.1:${page.port}`, "internal.test", `127.0.0.9:${internal.port}`],
      dns,
    });
    const fetched = await byAddress.get(`${page.origin}/hop`);
    expect(fetched.ok && new TextDecoder().decode(fetched.response.body)).toBe(
      "hello from 127.0.0.9",
    );
    expect(fetched.ok && [fetched.finalUrl, fetched.redirects]).toEqual([
      `http://internal.test:${internal.port}/secret`,
      1,
    ]);
    expect(internal.log).toEqual(["/secret"]);
  });

  test("a redirect to a host no rule allows asks about that host, and without a yes it is never visited", async () => {
    await using other = site("127.0.0.3");
    await using page = site("127.0.0.1", {
      "/away": redirect(`${other.origin}/x`),
    });
    const web = fetcher({ allow: [`127.0.0.1:${page.port}`] });
    const fetched = await web.get(`${page.origin}/away`);
    expect(fetched.ok).toBe(false);
    expect(web.asked.map((question) => question.rule)).toEqual([
      { host: "127.0.0.3", port: other.port },
    ]);
    expect(other.log).toEqual([]);
  });

  test("five redirects are followed, a sixth is not", async () => {
    await using page = site("127.0.0.1", {
      "/loop": (request) => {
        const n = Number(new URL(request.url).searchParams.get("n"));
        return n === Number(new URL(request.url).searchParams.get("stop"))
          ? new Response("arrived")
          : redirect(`/loop?n=${n + 1}&stop=${new URL(request.url).searchParams.get("stop")}`)();
      },
    });
    const web = fetcher({ allow: [`127.0.0.1:${page.port}`] });
    const five = await web.get(`${page.origin}/loop?n=0&stop=5`);
    expect(five.ok && [new TextDecoder().decode(five.response.body), five.redirects]).toEqual([
      "arrived",
      5,
    ]);
    const six = await web.get(`${page.origin}/loop?n=0&stop=6`);
    expect(six).toEqual({
      ok: false,
      reason: "failed",
      message: `${page.origin}/loop?n=0&stop=6 redirected more than 5 times; the last hop was ${page.origin}/loop?n=5&stop=6`,
    });
  });

  test("a redirect to another scheme is refused", async () => {
    await using page = site("127.0.0.1", { "/ftp": redirect("ftp://127.0.0.1/file") });
    const web = fetcher({ allow: [`127.0.0.1:${page.port}`] });
    expect(await web.get(`${page.origin}/ftp`)).toEqual({
      ok: false,
      reason: "refused",
      message: `${page.origin}/ftp redirected to ftp://127.0.0.1/file: ftp: URLs are not fetched; web_fetch reads http and https only`,
    });
  });
});

describe("bounds", () => {
  test("a 50 MB body is cut at the bound and the connection closed, without reading it all", async () => {
    const total = 50 * 1024 * 1024;
    const huge = hugeBody(total);
    await using page = site("127.0.0.1", { "/huge": huge.route });
    const web = fetcher({ allow: [`127.0.0.1:${page.port}`], maxBytes: 10 * 1024 * 1024 });
    const fetched = await web.get(`${page.origin}/huge`);
    expect(fetched.ok && [fetched.response.body.length, fetched.response.cut]).toEqual([
      10 * 1024 * 1024,
      true,
    ]);
    await huge.closed;
    // What the server had made when the client went away: the bound and what the sockets buffer.
    expect(huge.produced()).toBeLessThan(total / 2);
  });

  test("a gzip body is read decoded, and the bound counts the decoded bytes", async () => {
    await using page = site("127.0.0.1", {
      "/gz": () =>
        new Response(gzipSync("x".repeat(100_000)), {
          headers: { "content-encoding": "gzip", "content-type": "text/plain" },
        }),
    });
    const web = fetcher({ allow: [`127.0.0.1:${page.port}`], maxBytes: 60_000 });
    const fetched = await web.get(`${page.origin}/gz`);
    expect(fetched.ok && [fetched.response.body.length, fetched.response.cut]).toEqual([
      60_000,
      true,
    ]);
  });

  test("a server that never answers times out", async () => {
    await using page = site("127.0.0.1", { "/slow": hangingRoute().route });
    const web = fetcher({ allow: [`127.0.0.1:${page.port}`], timeoutMs: 300 });
    expect(await web.get(`${page.origin}/slow`)).toEqual({
      ok: false,
      reason: "timeout",
      message: `${page.origin}/slow was not fetched within 0.3 s ([web] timeout)`,
    });
  });

  test("a server that stalls in the middle of its body times out; what came is not taken for the page", async () => {
    await using page = site("127.0.0.1", {
      "/stall": () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("the first part, then nothing"));
            },
          }),
          { headers: { "content-type": "text/plain" } },
        ),
    });
    const web = fetcher({ allow: [`127.0.0.1:${page.port}`], timeoutMs: 300 });
    expect(await web.get(`${page.origin}/stall`)).toEqual({
      ok: false,
      reason: "timeout",
      message: `${page.origin}/stall was not fetched within 0.3 s ([web] timeout)`,
    });
  });

  test("a cancel ends the fetch at once, and the server sees the connection go", async () => {
    const hang = hangingRoute();
    await using page = site("127.0.0.1", { "/hang": hang.route });
    const web = fetcher({ allow: [`127.0.0.1:${page.port}`] });
    const cancel = new AbortController();
    const fetching = web.get(`${page.origin}/hang`, cancel.signal);
    await hang.arrived;
    cancel.abort();
    expect(await fetching).toEqual({
      ok: false,
      reason: "cancelled",
      message: "the fetch was cancelled",
    });
    await hang.gone;
  });
});

const openssl = Bun.which("openssl") !== null;
describe("https", () => {
  const tlsTest = runIf(openssl, test, "no openssl to make a certificate");
  tlsTest(
    "the certificate is checked against the name while the connection goes to the checked address",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "dsh-web-tls-"));
      try {
        const made = Bun.spawnSync(
          [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=secure.test",
            "-addext",
            "subjectAltName=DNS:secure.test",
            "-keyout",
            join(dir, "key.pem"),
            "-out",
            join(dir, "cert.pem"),
          ],
          { stderr: "pipe" },
        );
        expect(made.exitCode).toBe(0);
        const cert = readFileSync(join(dir, "cert.pem"), "utf8");
        await using server = {
          inner: Bun.serve({
            hostname: "127.0.0.1",
            port: 0,
            tls: { cert, key: readFileSync(join(dir, "key.pem"), "utf8") },
            fetch: () => new Response("over tls"),
          }),
          async [Symbol.asyncDispose]() {
            await this.inner.stop(true);
          },
        };
        const port = server.inner.port ?? 0;
        const dns = { "secure.test": "127.0.0.1", "other.test": "127.0.0.1" };
        const allow = ["secure.test", "other.test", `127.0.0.1:${port}`];
        const trusted = fetcher({ allow, dns, ca: [cert] });
        const fetched = await trusted.get(`https://secure.test:${port}/`);
        expect(fetched.ok && new TextDecoder().decode(fetched.response.body)).toBe("over tls");
        const wrongName = await trusted.get(`https://other.test:${port}/`);
        const untrusted = await fetcher({ allow, dns }).get(`https://secure.test:${port}/`);
        expect([wrongName, untrusted]).toEqual([
          {
            ok: false,
            reason: "failed",
            message: `https://other.test:${port}/ could not be fetched: the server's TLS certificate does not match its host name`,
          },
          {
            ok: false,
            reason: "failed",
            message: `https://secure.test:${port}/ could not be fetched: the server's TLS certificate is self-signed`,
          },
        ]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
