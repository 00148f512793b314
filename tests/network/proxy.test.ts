/**
 * The proxy's protocols against real clients and servers on loopback: HTTP forwarding with an
 * absolute URI, CONNECT tunnels (TLS included), SOCKS5 with names, and the replies a refusal
 * gets. The command's listener here is the host-loopback one (the macOS link); inside a
 * sandbox only the way to the listener differs (`sandbox-network.test.ts`).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { silentLogger } from "../../src/log.ts";
import { type NetworkService, createNetworkService } from "../../src/network/service.ts";
import type { CommandNetwork } from "../../src/network/service.ts";
import type { HostAnswer } from "../../src/network/types.ts";
import { recordingRequester } from "../support/recording-requester.ts";
import { startTarget } from "../support/target-server.ts";

const target = startTarget("127.0.0.2");
// Allowed by name; its address is a loopback one that is not allowed.
const named = startTarget("127.0.0.3");
const hosts: Record<string, string> = { "named.test": "127.0.0.3", "public.test": "93.184.216.34" };
const network: NetworkService = createNetworkService({
  config: { allow: [target.authority, "named.test"], deny: ["denied.test"] },
  savedHosts: () => [],
  logger: silentLogger,
  resolve: async (name) => {
    const { parseIpLiteral } = await import("../../src/network/address.ts");
    const address = hosts[name] === undefined ? undefined : parseIpLiteral(hosts[name]);
    if (address === undefined) throw new Error("ENOTFOUND");
    return [address];
  },
});
afterAll(async () => {
  await network[Symbol.asyncDispose]();
  await target[Symbol.asyncDispose]();
  await named[Symbol.asyncDispose]();
});

async function open(answer?: HostAnswer): Promise<CommandNetwork & { asked: string[] }> {
  const who = recordingRequester(answer);
  const opened = await network.open(who, "seatbelt");
  return Object.assign(opened, { asked: who.asked });
}

async function curl(args: string[], stdin?: string): Promise<{ code: number; out: string }> {
  const proc = Bun.spawn(["curl", "-sS", ...args], {
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "" },
  });
  const [code, out, err] = await Promise.all([proc.exited, proc.stdout.text(), proc.stderr.text()]);
  return { code, out: out + err };
}

describe("HTTP", () => {
  test("forwards an absolute-URI request to an allowed host, with Host and no proxy headers", async () => {
    const link = await open();
    const proxy = `http://127.0.0.1:${link.port}`;
    const result = await curl([
      "-x",
      proxy,
      "-H",
      "Proxy-Authorization: Basic eA==",
      `http://${target.authority}/plain?q=1`,
    ]);
    expect(result).toEqual({ code: 0, out: "hello from 127.0.0.2 /plain\n" });
    const seen = target.headers.at(-1);
    expect([seen?.get("host"), seen?.get("proxy-authorization"), seen?.get("connection")]).toEqual([
      target.authority,
      null,
      "close",
    ]);
    expect(link.close()).toEqual([]);
  });

  test("passes a request body both ways", async () => {
    const link = await open();
    const body = "x".repeat(200_000);
    const result = await curl(
      [
        "-x",
        `http://127.0.0.1:${link.port}`,
        "--data-binary",
        "@-",
        `http://${target.authority}/echo`,
      ],
      body,
    );
    expect(result.out.length).toBe(body.length);
    link.close();
  });

  test("tunnels CONNECT to an allowed host", async () => {
    const link = await open();
    const result = await curl([
      "-p",
      "-x",
      `http://127.0.0.1:${link.port}`,
      `http://${target.authority}/tunnel`,
    ]);
    expect(result).toEqual({ code: 0, out: "hello from 127.0.0.2 /tunnel\n" });
    link.close();
  });

  test("refuses a denied host with 403 and a body that says why, and records it", async () => {
    const link = await open();
    const before = target.log.length;
    const result = await curl([
      "-x",
      `http://127.0.0.1:${link.port}`,
      "-w",
      "%{http_code}",
      "http://denied.test/",
    ]);
    expect(result.out).toBe(
      'dsh proxy: denied.test is denied by [network] deny ("denied.test") in the config\n403',
    );
    expect(link.asked).toEqual([]);
    expect(target.log.length).toBe(before);
    expect(link.close()).toEqual([
      '[network: the proxy refused denied.test:80: denied.test is denied by [network] deny ("denied.test") in the config]',
    ]);
  });

  test("a CONNECT refusal is a 403 the client reports", async () => {
    const link = await open();
    const result = await curl([
      "-p",
      "-x",
      `http://127.0.0.1:${link.port}`,
      "http://denied.test:443/",
    ]);
    expect(result.code).toBe(56);
    expect(result.out).toContain("403");
    link.close();
  });

  test("an allowed name that resolves to a loopback address is refused, and nothing arrives", async () => {
    const link = await open("allow");
    const result = await curl([
      "-x",
      `http://127.0.0.1:${link.port}`,
      `http://named.test:${named.port}/named`,
    ]);
    expect(result.out).toContain("named.test resolves to 127.0.0.3, a loopback address");
    expect(named.log).toEqual([]);
    link.close();
  });

  test("a redirect to a loopback address that is not allowed is refused at its hop", async () => {
    const link = await open();
    const other = startTarget("127.0.0.5");
    await using _other = other;
    const to = encodeURIComponent(`http://${other.authority}/stolen`);
    const result = await curl([
      "-L",
      "-x",
      `http://127.0.0.1:${link.port}`,
      `http://${target.authority}/redirect?to=${to}`,
    ]);
    expect(result.out).toContain(`dsh proxy: ${other.authority} is not allowed`);
    expect(other.log).toEqual([]);
    expect(target.log.at(-1)).toStartWith("/redirect");
    link.close();
  });

  test("refuses what is not a proxy request", async () => {
    const link = await open();
    const socket = await Bun.connect({
      hostname: "127.0.0.1",
      port: link.port,
      socket: { data() {} },
    });
    socket.end();
    const result = await curl(["-w", "%{http_code}", `http://127.0.0.1:${link.port}/direct`]);
    expect(result.out).toContain("a request must name an absolute http:// URL");
    link.close();
  });
});

describe("SOCKS5", () => {
  test("connects by name and by address to allowed hosts", async () => {
    const link = await open();
    const socks = `127.0.0.1:${link.port}`;
    expect(await curl(["--socks5-hostname", socks, `http://${target.authority}/socks`])).toEqual({
      code: 0,
      out: "hello from 127.0.0.2 /socks\n",
    });
    expect(await curl(["--socks5", socks, `http://${target.authority}/socks4a`])).toEqual({
      code: 0,
      out: "hello from 127.0.0.2 /socks4a\n",
    });
    link.close();
  });

  test("answers a refusal with 'connection not allowed by ruleset'", async () => {
    const link = await open();
    const reply = await socksRequest(link.port, "denied.test", 443);
    expect([...reply]).toEqual([5, 0, 5, 2, 0, 1, 0, 0, 0, 0, 0, 0]);
    link.close();
  });

  test("refuses UDP ASSOCIATE: nothing but TCP leaves through the proxy", async () => {
    const link = await open();
    const reply = await socksRequest(link.port, "public.test", 53, 3);
    expect([...reply.subarray(2, 4)]).toEqual([5, 7]);
    link.close();
  });
});

/** A raw SOCKS5 exchange: the method reply and the request's reply, concatenated. */
async function socksRequest(
  port: number,
  host: string,
  targetPort: number,
  command = 1,
): Promise<Buffer> {
  const { promise, resolve } = Promise.withResolvers<Buffer>();
  let received = Buffer.alloc(0);
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_s, chunk) {
        received = Buffer.concat([received, chunk]);
        if (received.length >= 12) resolve(received);
      },
      close() {
        resolve(received);
      },
    },
  });
  const name = Buffer.from(host);
  socket.write(Buffer.from([5, 1, 0]));
  socket.write(
    Buffer.concat([
      Buffer.from([5, command, 0, 3, name.length]),
      name,
      Buffer.from([targetPort >> 8, targetPort & 0xff]),
    ]),
  );
  const reply = await promise;
  socket.end();
  return reply;
}
