/**
 * The namespaces dsh makes itself (as root): a command spawned through `within` is in one whose
 * only listener is dsh's, and a process that is not (as if the runtime had spawned from another
 * thread) is killed, with its group, before it can use dsh's own network.
 */
import { describe, expect, test } from "bun:test";
import { readlinkSync } from "node:fs";
import { openNamespaces } from "../../src/network/namespace.ts";
import { runIf } from "../support/gate.ts";

const namespaces = await openNamespaces();
const check = runIf(
  namespaces !== undefined,
  test,
  "dsh cannot make network namespaces here (not root)",
);

describe("a command's own network namespace", () => {
  check("a spawn within it lands in it, with the loopback up and the listener there", async () => {
    const namespace = namespaces?.open(41080);
    if (namespace === undefined) throw new Error("no namespace");
    const proc = namespace.within(() =>
      Bun.spawn(
        [
          "sh",
          "-c",
          "readlink /proc/self/ns/net; cat /proc/net/tcp | grep -c '0100007F:A078 00000000:0000 0A'",
        ],
        {
          stdout: "pipe",
        },
      ),
    );
    const [own, listeners] = (await proc.stdout.text()).trim().split("\n");
    expect(own).not.toBe(readlinkSync("/proc/self/ns/net"));
    expect(listeners).toBe("1");
  });

  check("a process that is not in it is killed and the spawn refused", async () => {
    const namespace = namespaces?.open(41080);
    if (namespace === undefined) throw new Error("no namespace");
    const outside = Bun.spawn(["sleep", "30"], { detached: true });
    expect(() => namespace.within(() => outside)).toThrow("started outside its network namespace");
    await outside.exited;
    expect(outside.signalCode).toBe("SIGKILL");
  });
});
