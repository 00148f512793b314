/**
 * The holders of sessions' namespaces for bridged commands (where dsh does not make them): a
 * session's bridges all enter one holder, each on a port of its own; a holder that died is
 * replaced at the session's next command; a session's end ends its holder; a command outside
 * any session gets its own namespace, as bwrap makes it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { openHolders } from "../../src/exec/network-holder.ts";
import type { NetworkHolders } from "../../src/network/holder.ts";
import type { SandboxAttach } from "../../src/network/sandbox-link.ts";
import { createListenerMaker } from "../../src/network/links.ts";
import { silentLogger } from "../../src/log.ts";
import { runIf } from "../support/gate.ts";
import { sandboxStatus } from "../support/sandbox-gate.ts";

const bwrapHere = sandboxStatus.ok && sandboxStatus.backend === "bwrap";
const holders: NetworkHolders | undefined = bwrapHere ? await openHolders(silentLogger) : undefined;
const check = runIf(holders !== undefined, test, "no bwrap sandbox or no nsenter here");
const maker = createListenerMaker({
  namespaces: async () => undefined,
  selfArgv: ["/nonexistent/dsh"],
  holders: async () => holders,
});
afterAll(() => maker.dispose());

const ignore = () => {};
/** The argv and network namespace a bridge's attach enters, or undefined. */
function entered(attach: SandboxAttach): { argv: readonly string[]; net: string } | undefined {
  if (attach.type !== "bridge" || attach.enter === undefined) return undefined;
  const entry = attach.enter(3);
  try {
    return { argv: entry.argv, net: readlinkSync(`/proc/self/fd/${entry.fds[1]}`) };
  } finally {
    entry.close();
  }
}
/** The live processes in the network namespace `net` (the holder's). */
const holding = (net: string | undefined) =>
  readdirSync("/proc").filter((entry) => {
    try {
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"))?.[1];
      return readlinkSync(`/proc/${entry}/ns/net`) === net && state !== "Z";
    } catch {
      return false;
    }
  });
const alive = (net: string | undefined) => holding(net).length > 0;
async function gone(net: string | undefined): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (alive(net) && Date.now() < deadline) await Bun.sleep(25);
  return !alive(net);
}

describe("a session's network holder", () => {
  check("a session's bridges enter one holder, each on its own port", async () => {
    const one = await maker.open("bridge", ignore, "s1");
    const two = await maker.open("bridge", ignore, "s1");
    const other = await maker.open("bridge", ignore, "s2");
    try {
      const net = entered(one.attach)?.net;
      expect(net).toMatch(/^net:\[\d+\]$/);
      expect(alive(net)).toBe(true);
      expect(entered(two.attach)?.net).toBe(net);
      expect(entered(other.attach)?.net).not.toBe(net);
      expect(net).not.toBe(readlinkSync("/proc/self/ns/net"));
      expect(one.port).not.toBe(two.port);
      expect(one.attach.type === "bridge" && one.attach.bridge.at(-1)).toBe(String(one.port));
      // By the descriptors the command inherits, never by the holder's pid.
      expect(entered(one.attach)?.argv.slice(1)).toEqual([
        "--user=/proc/self/fd/3",
        "--net=/proc/self/fd/4",
        "--preserve-credentials",
        "--",
      ]);
    } finally {
      for (const listener of [one, two, other]) listener.close();
    }
    const nets = [entered(one.attach)?.net, entered(other.attach)?.net];
    maker.endScope("s1");
    expect(await gone(nets[0])).toBe(true);
    expect(alive(nets[1])).toBe(true);
    maker.endScope("s2");
    expect(await gone(nets[1])).toBe(true);
  });

  check("a holder that died is replaced at the session's next command", async () => {
    const first = await maker.open("bridge", ignore, "s3");
    first.close();
    const net = entered(first.attach)?.net;
    const killed = holding(net);
    for (const pid of killed) process.kill(Number(pid), "SIGKILL");
    expect(await gone(net)).toBe(true);
    const next = await maker.open("bridge", ignore, "s3");
    next.close();
    // A namespace's id may be given again once it is gone: the holder's processes tell.
    const replaced = entered(next.attach)?.net;
    expect(replaced).toMatch(/^net:\[\d+\]$/);
    expect(holding(replaced)).not.toEqual(killed);
    expect(alive(replaced)).toBe(true);
    // The old holder's descriptors went with it: entering it is refused.
    expect(() => entered(first.attach)).toThrow(/ended before the command started/);
    maker.endScope("s3");
    expect(await gone(replaced)).toBe(true);
  });

  check("a command of no session gets a namespace of its own", async () => {
    const alone = await maker.open("bridge", ignore);
    alone.close();
    expect(alone.attach.type === "bridge" && alone.attach.enter).toBeUndefined();
    expect(alone.port).toBe(41080);
  });
});
