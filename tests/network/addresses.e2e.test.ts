/**
 * The address rules through the compiled binary, where a refusal would otherwise reach a real
 * server: in a private network namespace whose loopback also holds a private (10.77.0.1), a
 * CGNAT (100.64.0.9) and two metadata addresses (169.254.169.254, fd00:ec2::254), with names
 * for them in a private `/etc/hosts`. Every host name is allowed (`allow = ["*"]`); still no
 * request reaches any of those servers, by address in any spelling, by name, or through a
 * redirect from an allowed host. Their request logs prove it.
 */
import { afterAll, describe, expect } from "bun:test";
import { mkdtempSync, realpathSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary } from "../support/binary.ts";
import { runIf } from "../support/gate.ts";
import { sandboxStatus } from "../support/sandbox-gate.ts";
import { test } from "bun:test";

const workdir = realpathSync(mkdtempSync(join(tmpdir(), "dsh-net-addresses-")));
afterAll(() => rmSync(workdir, { recursive: true, force: true }));

const root = process.getuid?.() === 0;
const check = runIf(root && sandboxStatus.ok, test, "needs root (unshare -n -m) and a sandbox");

describe("addresses that are not public", () => {
  check(
    "are refused by address, by allowed name and through redirects; nothing arrives",
    async () => {
      const binary = await ensureBinary();
      const hosts = join(workdir, "hosts");
      writeFileSync(
        hosts,
        `${readFileSync("/etc/hosts", "utf8")}\n127.0.0.3 loop.test\n10.77.0.1 private.test\n` +
          "100.64.0.9 cgnat.test\n169.254.169.254 meta.test\nfd00:ec2::254 meta6.test\n",
      );
      const setup = [
        "ip link set lo up",
        "ip addr add 10.77.0.1/32 dev lo",
        "ip addr add 100.64.0.9/32 dev lo",
        "ip addr add 169.254.169.254/32 dev lo",
        "ip -6 addr add fd00:ec2::254/128 dev lo",
        `mount --bind ${hosts} /etc/hosts`,
        'exec "$@"',
      ].join(" && ");
      const fixture = join(import.meta.dir, "fixtures", "address-refusals.ts");
      const proc = Bun.spawn(
        [
          "unshare",
          "-n",
          "-m",
          "sh",
          "-c",
          setup,
          "sh",
          process.execPath,
          fixture,
          binary,
          workdir,
        ],
        { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
      );
      const [code, out, err] = await Promise.all([
        proc.exited,
        proc.stdout.text(),
        proc.stderr.text(),
      ]);
      expect({ code, err }).toEqual({ code: 0, err: "" });
      const report = JSON.parse(out);
      expect(report.code).toBe(0);
      const codes = report.result.split("\n")[1].trim().split(" ");
      expect(codes).toEqual(Array(report.urls).fill("403"));
      expect(report.logs).toEqual({
        loopback: [],
        private: [],
        cgnat: [],
        metadata: [],
        metadata6: [],
      });
      // The allowed host was reached: the refusals came at the redirect's second hop.
      expect(report.allowed.length).toBe(10);
      expect(report.result).toContain("[network: the proxy refused meta.test:");
      expect(report.result).toContain(
        "meta.test resolves to 169.254.169.254, a cloud metadata address, which is reached only when allowed by address",
      );
      expect(report.result).toContain("10.77.0.1 is a private network address");
    },
  );
});
