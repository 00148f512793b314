/**
 * Sandboxed commands and the network, through the real runner and bwrap: the proxy variables
 * lead to dsh's proxy and nowhere else; direct TCP, UDP, DNS, raw and packet sockets fail.
 * Both ways into the command's namespace are run: the one dsh makes itself (as root) and the
 * bridge (dsh's own binary inside the sandbox).
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { createSocket } from "node:dgram";
import { chmodSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { silentLogger } from "../../src/log.ts";
import { type NetworkService, createNetworkService } from "../../src/network/service.ts";
import { recordingRequester } from "../support/recording-requester.ts";
import { ensureBinary } from "../support/binary.ts";
import { runIf } from "../support/gate.ts";
import { startTarget } from "../support/target-server.ts";
import { baseEnv, makeRunner, run, tempDir } from "../exec/helpers.ts";
import { sandboxStatus, sandboxTest } from "../exec/sandbox-support.ts";

const target = startTarget("127.0.0.2");
const binary = await ensureBinary();
const services: NetworkService[] = [];
afterAll(async () => {
  for (const service of services) await service[Symbol.asyncDispose]();
  await target[Symbol.asyncDispose]();
});

const root = process.getuid?.() === 0;
const kinds = [
  { name: "in a namespace dsh makes", namespaces: "auto" as const, ready: root },
  { name: "through the bridge", namespaces: "never" as const, ready: true },
];

for (const kind of kinds) {
  const check = runIf(kind.ready && sandboxStatus.ok, sandboxTest, "dsh is not root here");
  describe(`sandboxed commands ${kind.name}`, () => {
    let network: NetworkService;
    let runner: ReturnType<typeof makeRunner>;
    beforeAll(() => {
      network = createNetworkService({
        config: { allow: [target.authority], deny: ["denied.test"] },
        savedHosts: () => [],
        logger: silentLogger,
        namespaces: kind.namespaces,
        selfArgv: [binary],
      });
      services.push(network);
      runner = makeRunner({ network, env: baseEnv({ HTTPS_PROXY: "http://corp.example:3128" }) });
    });

    check("reach an allowed host through the proxy variables, which point at dsh", async () => {
      using dir = tempDir();
      const result = await run(
        runner,
        dir.path,
        `curl -sS http://${target.authority}/curl; echo "$HTTPS_PROXY $https_proxy $ALL_PROXY $NO_PROXY"`,
        { network: recordingRequester() },
      );
      expect(result.output).toBe(
        "hello from 127.0.0.2 /curl\n" +
          "http://127.0.0.1:41080 http://127.0.0.1:41080 socks5h://127.0.0.1:41080 localhost,127.0.0.1\n",
      );
    });

    check("a refused host is named with the reason in the command's output", async () => {
      using dir = tempDir();
      const who = recordingRequester();
      const result = await run(
        runner,
        dir.path,
        "curl -sS http://denied.test/ http://127.0.0.9:81/",
        {
          network: who,
        },
      );
      expect(result.output).toBe(
        'dsh proxy: denied.test is denied by [network] deny ("denied.test") in the config\n' +
          "dsh proxy: 127.0.0.9:81 is not allowed: [network] allow does not list it, and the " +
          "user did not allow it (or nobody could be asked)\n" +
          '\n[network: the proxy refused denied.test:80: denied.test is denied by [network] deny ("denied.test") in the config]' +
          "\n[network: the proxy refused 127.0.0.9:81: 127.0.0.9:81 is not allowed: [network] " +
          "allow does not list it, and the user did not allow it (or nobody could be asked)]",
      );
      expect(who.asked).toEqual(['{"host":"127.0.0.9","port":81}']);
    });

    check("ignoring the proxy leads nowhere: direct TCP, UDP and DNS fail", async () => {
      using dir = tempDir();
      await using direct = startTarget("127.0.0.6");
      const udp = createSocket("udp4");
      const datagrams: string[] = [];
      udp.on("message", (message) => datagrams.push(message.toString()));
      const bound = Promise.withResolvers<void>();
      udp.bind(0, "127.0.0.2", bound.resolve);
      await bound.promise;
      const udpPort = udp.address().port;
      const script = [
        `curl -sS -m 5 --noproxy '*' http://${direct.authority}/direct || echo direct-failed`,
        `(echo probe > /dev/udp/127.0.0.2/${udpPort}) 2>/dev/null; echo udp-local-sent`,
        "(echo probe > /dev/udp/1.1.1.1/53) 2>/dev/null || echo udp-out-failed",
        "getent hosts example.com || echo dns-failed",
      ].join("; ");
      const result = await run(runner, dir.path, script, { network: recordingRequester("allow") });
      udp.close();
      expect(result.output).toContain(
        "direct-failed\nudp-local-sent\nudp-out-failed\ndns-failed\n",
      );
      expect(direct.log).toEqual([]);
      expect(datagrams).toEqual([]);
    });

    check("raw and packet sockets are refused", async () => {
      using dir = tempDir();
      const python = (code: string) => `python3 -c '${code}' 2>&1 | tail -n 1`;
      const script = [
        python("import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW)"),
        python("import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)"),
        python("import socket; socket.socket(socket.AF_INET6, socket.SOCK_RAW, 58)"),
        python('import socket; s = socket.socket(); print("tcp-ok")'),
      ].join("; ");
      const result = await run(runner, dir.path, script, { network: recordingRequester() });
      expect(result.output.trim().split("\n")).toEqual([
        "PermissionError: [Errno 1] Operation not permitted",
        "PermissionError: [Errno 1] Operation not permitted",
        "PermissionError: [Errno 1] Operation not permitted",
        "tcp-ok",
      ]);
    });

    check("the command's own loopback stays its own", async () => {
      using dir = tempDir();
      const script =
        "python3 -m http.server 8999 --bind 127.0.0.1 >/dev/null 2>&1 & " +
        "for i in $(seq 50); do curl -s http://127.0.0.1:8999/ >/dev/null && break; sleep 0.1; done; " +
        "curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8999/; kill %1";
      const result = await run(runner, dir.path, script, { network: recordingRequester() });
      expect(result.output).toBe("200");
    });

    check(
      "outside the sandbox the network is the host's and the parent's proxy stays",
      async () => {
        using dir = tempDir();
        const result = await run(
          runner,
          dir.path,
          `echo "$HTTPS_PROXY"; curl -sS --noproxy '*' http://${target.authority}/outside`,
          { sandbox: "danger-full-access", network: recordingRequester() },
        );
        expect(result.output).toBe("http://corp.example:3128\nhello from 127.0.0.2 /outside\n");
      },
    );
  });
}

describe("the bridge run from under /tmp", () => {
  // The sandbox's /tmp is its own: a dsh unpacked (or a clone) under the host's /tmp must still
  // be there for its bridge.
  runIf(
    sandboxStatus.ok,
    sandboxTest,
    "no working sandbox backend",
  )("an executable under /tmp still bridges its command to the proxy", async () => {
    using place = tempDir();
    const copy = join(place.path, "dsh");
    copyFileSync(binary, copy);
    chmodSync(copy, 0o755);
    const network = createNetworkService({
      config: { allow: [target.authority], deny: [] },
      savedHosts: () => [],
      logger: silentLogger,
      namespaces: "never",
      selfArgv: [copy],
    });
    services.push(network);
    await using runner = makeRunner({ network });
    using dir = tempDir();
    const result = await run(runner, dir.path, `curl -sS http://${target.authority}/tmp`, {
      network: recordingRequester(),
    });
    expect(result.output).toBe("hello from 127.0.0.2 /tmp\n");
  });
});
