/**
 * What each sandbox backend is told about a command's network: bwrap shares the namespace dsh
 * made or binds the bridge's socket, Seatbelt allows the proxy's one port, the seccomp filter
 * refuses raw and packet sockets, and the environment points every proxy variable at dsh.
 */
import { describe, expect, test } from "bun:test";
import { bwrapArgs } from "../../src/exec/bwrap.ts";
import { scrubEnv } from "../../src/exec/env.ts";
import { seatbeltProfile } from "../../src/exec/seatbelt.ts";
import { seccompProgram } from "../../src/exec/seccomp.ts";

const plan = {
  mode: "workspace-write" as const,
  workspace: "/tmp/ws",
  cwd: "/tmp/ws",
  guards: [],
  masks: [],
  services: [],
  kernel: [],
  network: false,
};

describe("bwrap", () => {
  const args = (extra: Partial<Parameters<typeof bwrapArgs>[0]>) =>
    bwrapArgs({ ...plan, ...extra }, { disableUserns: false }, ["sh"]);

  test("the namespace dsh made is shared, not replaced by an empty one", () => {
    expect(args({ network: true })).toContain("--share-net");
    expect(args({ network: true })).not.toContain("--unshare-net");
  });

  test("the bridge's socket is bound into the private /tmp, right after it", () => {
    const bridged = args({ proxySocket: "/tmp/dsh-net-x/1.sock" });
    const tmp = bridged.indexOf("/tmp", bridged.indexOf("--tmpfs"));
    expect(bridged).toContain("--unshare-net");
    expect(bridged.slice(tmp + 1, tmp + 4)).toEqual([
      "--bind",
      "/tmp/dsh-net-x/1.sock",
      "/tmp/.dsh-proxy.sock",
    ]);
  });
});

describe("Seatbelt", () => {
  const seatbelt = {
    mode: "read-only" as const,
    workspace: "/Users/u/p",
    tempDir: "/private/var/folders/x/T/dsh-cmd-1",
    guards: [],
    caseInsensitive: true,
    secrets: [],
    network: false,
  };

  test("allows the proxy's port on the loopback and nothing else of the network", () => {
    const { profile } = seatbeltProfile({ ...seatbelt, proxyPort: 50123 });
    expect(profile.split("\n").filter((line) => line.includes("network"))).toEqual([
      '(allow network-outbound (remote ip "localhost:50123"))',
    ]);
    expect(seatbeltProfile(seatbelt).profile).not.toContain("network");
  });
});

describe("seccomp", () => {
  const instructions = (bytes: Uint8Array) => {
    const view = new DataView(bytes.buffer);
    return Array.from({ length: bytes.length / 8 }, (_, i) => [
      view.getUint16(i * 8, true),
      view.getUint8(i * 8 + 2),
      view.getUint8(i * 8 + 3),
      view.getUint32(i * 8 + 4, true),
    ]);
  };

  test("socket(2) with AF_PACKET, SOCK_RAW or SOCK_PACKET jumps to EPERM, others to ALLOW", () => {
    const code = instructions(seccompProgram("x64") ?? new Uint8Array());
    const allow = code.length - 3;
    // The socket checks, then the ioctl checks (7 instructions), then ALLOW.
    const start = allow - 7 - 7;
    const block = code.slice(start, start + 7);
    // Each jump is relative to the next instruction: EPERM is allow + 1.
    const to = (from: number, offset: number) => start + from + 1 + offset;
    // What is no socket(2) goes on to the ioctl checks, which send what is no ioctl(2) to ALLOW.
    const ioctl = code.slice(start + 7, allow);
    expect(ioctl.slice(0, 2).map(([op, , , k]) => [op, k])).toEqual([
      [0x20, 0],
      [0x15, 16],
    ]);
    expect(start + 7 + 1 + 1 + (ioctl[1]?.[2] ?? 0)).toBe(allow);
    expect(block.map(([op, , , k]) => [op, k])).toEqual([
      [0x15, 41],
      [0x20, 16],
      [0x15, 17],
      [0x20, 24],
      [0x54, 0xf],
      [0x15, 3],
      [0x15, 10],
    ]);
    expect(to(0, block[0]?.[2] ?? 0)).toBe(start + 7);
    expect([2, 5, 6].map((i) => to(i, block[i]?.[1] ?? 0))).toEqual([
      allow + 1,
      allow + 1,
      allow + 1,
    ]);
    expect(code[allow + 1]).toEqual([0x06, 0, 0, 0x00050001]);
  });
});

describe("the environment", () => {
  test("every proxy variable points at dsh's proxy, whatever the parent had", () => {
    const parent = {
      PATH: "/bin",
      HTTPS_PROXY: "http://corp.example:3128",
      no_proxy: ".corp.example",
    };
    const { env } = scrubEnv(parent, { backend: "bwrap", home: "/h", cwd: "/w", proxyPort: 41080 });
    const proxies = Object.fromEntries(Object.entries(env).filter(([name]) => /proxy/i.test(name)));
    expect(proxies).toEqual({
      HTTP_PROXY: "http://127.0.0.1:41080",
      http_proxy: "http://127.0.0.1:41080",
      HTTPS_PROXY: "http://127.0.0.1:41080",
      https_proxy: "http://127.0.0.1:41080",
      ALL_PROXY: "socks5h://127.0.0.1:41080",
      all_proxy: "socks5h://127.0.0.1:41080",
      NO_PROXY: "localhost,127.0.0.1",
      no_proxy: "localhost,127.0.0.1",
    });
  });
});
