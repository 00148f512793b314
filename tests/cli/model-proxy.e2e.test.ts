/**
 * dsh's own requests on a network with a proxy, through the compiled binary: the model client
 * goes through `HTTP_PROXY`/`HTTPS_PROXY` unless `NO_PROXY` lists the endpoint, trusts the CA of
 * `SSL_CERT_FILE` or `NODE_EXTRA_CA_CERTS`, and `dsh doctor` says which proxy it uses.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CliRig, startCliRig } from "../support/cli.ts";
import { runIf } from "../support/gate.ts";
import { textTurn } from "../support/model-server.ts";

let rig: CliRig;
const seen: string[] = [];
let proxy: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  rig = await startCliRig("dsh-model-proxy");
  // A forward proxy: requests arrive with absolute URIs and are passed on.
  proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      seen.push(new URL(request.url).pathname);
      const body = request.method === "GET" ? undefined : await request.arrayBuffer();
      // doctor also probes local model ports through it: nothing listens on most.
      const upstream = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body,
      }).catch(() => new Response("nothing there", { status: 502 }));
      return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
    },
  });
});
afterAll(async () => {
  await proxy.stop(true);
  await rig[Symbol.asyncDispose]();
});

const proxyUrl = () => `http://127.0.0.1:${proxy.port}`;

describe("the model client", () => {
  test("goes through HTTP_PROXY to the endpoint, and doctor says so", async () => {
    const project = rig.project("through");
    rig.server.script(textTurn("via the proxy"));
    seen.length = 0;
    const env = { ...project.env, HTTP_PROXY: proxyUrl() };
    const run = await rig.run(["exec", "hi"], project, { env });
    expect([run.code, run.stdout]).toEqual([0, "via the proxy\n"]);
    expect(seen).toEqual(["/chat/completions"]);
    const doctor = await rig.run(["doctor"], project, { env });
    expect(doctor.stdout).toContain(`✓ model proxy: through ${proxyUrl()} (HTTP_PROXY)\n`);
  });

  test("goes direct when NO_PROXY lists the endpoint", async () => {
    const project = rig.project("direct");
    rig.server.script(textTurn("direct"));
    seen.length = 0;
    const env = { ...project.env, HTTP_PROXY: proxyUrl(), NO_PROXY: "127.0.0.1" };
    const run = await rig.run(["exec", "hi"], project, { env });
    expect([run.code, run.stdout, seen]).toEqual([0, "direct\n", []]);
    const doctor = await rig.run(["doctor"], project, { env });
    expect(doctor.stdout).toContain(
      "✓ model proxy: direct (no HTTPS_PROXY or HTTP_PROXY applies to the endpoint)\n",
    );
  });
});

const openssl = Bun.which("openssl") !== null;
describe("extra CA certificates", () => {
  const tlsTest = runIf(openssl, test, "no openssl to make a certificate");
  tlsTest("an endpoint with a private CA works with SSL_CERT_FILE, and fails without", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dsh-ca-"));
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
          "/CN=localhost",
          "-addext",
          "subjectAltName=IP:127.0.0.1",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
        ],
        { stderr: "pipe" },
      );
      expect(made.exitCode).toBe(0);
      // TLS in front of the model server.
      await using front = {
        server: Bun.serve({
          hostname: "127.0.0.1",
          port: 0,
          tls: {
            cert: readFileSync(join(dir, "cert.pem"), "utf8"),
            key: readFileSync(join(dir, "key.pem"), "utf8"),
          },
          async fetch(request) {
            const url = new URL(request.url);
            const upstream = await fetch(`${rig.server.url}${url.pathname}`, {
              method: request.method,
              headers: request.headers,
              body: await request.arrayBuffer(),
            });
            return new Response(upstream.body, {
              status: upstream.status,
              headers: upstream.headers,
            });
          },
        }),
        async [Symbol.asyncDispose]() {
          await this.server.stop(true);
        },
      };
      const project = rig.project("ca");
      const base = `https://127.0.0.1:${front.server.port}`;
      rig.server.script(textTurn("trusted"));
      const trusted = await rig.run(["exec", "hi"], project, {
        env: { ...project.env, DSH_BASE_URL: base, SSL_CERT_FILE: join(dir, "cert.pem") },
      });
      expect([trusted.code, trusted.stdout]).toEqual([0, "trusted\n"]);
      const untrusted = await rig.run(["exec", "hi"], project, {
        env: { ...project.env, DSH_BASE_URL: base },
      });
      expect(untrusted.code).toBe(1);
      expect(untrusted.stderr).toMatch(/certificate/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
