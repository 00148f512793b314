/**
 * The holders of sessions' namespaces for bridged commands (where dsh does not make them): a
 * session's bridges all enter one holder, each on a port of its own; a holder that died is
 * replaced at the session's next command; a session's end ends its holder; a command outside
 * any session gets its own namespace, as bwrap makes it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readlinkSync } from "node:fs";
import { openHolders } from "../../src/exec/network-holder.ts";
import type { NetworkHolders } from "../../src/network/holder.ts";
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
/** The holder pid a bridge's attach enters, or undefined. */
function holderPid(attach: { type: string; enter?: readonly string[] }): number | undefined {
  const at = attach.enter?.indexOf("-t") ?? -1;
  return at < 0 ? undefined : Number(attach.enter?.[at + 1]);
}
const alive = (pid: number | undefined) => {
  try {
    readlinkSync(`/proc/${pid}/ns/net`);
    return true;
  } catch {
    return false;
  }
};
async function gone(pid: number | undefined): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (alive(pid) && Date.now() < deadline) await Bun.sleep(25);
  return !alive(pid);
}

describe("a session's network holder", () => {
  check("a session's bridges enter one holder, each on its own port", async () => {
    const one = await maker.open("bridge", ignore, "s1");
    const two = await maker.open("bridge", ignore, "s1");
    const other = await maker.open("bridge", ignore, "s2");
    try {
      const pid = holderPid(one.attach);
      expect(pid).toBeGreaterThan(1);
      expect(holderPid(two.attach)).toBe(pid);
      expect(holderPid(other.attach)).not.toBe(pid);
      expect(readlinkSync(`/proc/${pid}/ns/net`)).not.toBe(readlinkSync("/proc/self/ns/net"));
      expect(one.port).not.toBe(two.port);
      expect(one.attach.type === "bridge" && one.attach.bridge.at(-1)).toBe(String(one.port));
      expect(one.attach.type === "bridge" && one.attach.enter?.slice(-5)).toEqual([
        String(pid),
        "-U",
        "-n",
        "--preserve-credentials",
        "--",
      ]);
    } finally {
      for (const listener of [one, two, other]) listener.close();
    }
    maker.endScope("s1");
    expect(await gone(holderPid(one.attach))).toBe(true);
    expect(alive(holderPid(other.attach))).toBe(true);
    maker.endScope("s2");
    expect(await gone(holderPid(other.attach))).toBe(true);
  });

  check("a holder that died is replaced at the session's next command", async () => {
    const first = await maker.open("bridge", ignore, "s3");
    first.close();
    const pid = holderPid(first.attach);
    process.kill(pid ?? 0, "SIGKILL");
    expect(await gone(pid)).toBe(true);
    const next = await maker.open("bridge", ignore, "s3");
    next.close();
    const replaced = holderPid(next.attach);
    expect(replaced).toBeGreaterThan(1);
    expect(replaced).not.toBe(pid);
    expect(alive(replaced)).toBe(true);
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
