/**
 * The global `/proc` entries bwrap's own `--proc` already binds read-only are not bound again:
 * only an entry a sandbox shows mounted twice (bwrap's cover, then dsh's bind over it) counts
 * as covered; one mounted once (by dsh alone) or not at all stays in the plan.
 */
import { describe, expect, test } from "bun:test";
import { coveredByBwrap } from "../../src/exec/kernel-guards.ts";

const line = (id: number, point: string, fs = "proc") =>
  `${id} 30 0:${id} /${point.split("/").at(-1)} ${point} ro,nosuid,nodev,noexec,relatime - ${fs} proc rw`;

describe("kernel entries bwrap covers itself", () => {
  test("are the ones mounted twice, and only those", () => {
    const mountinfo = [
      "28 27 254:0 / / ro,relatime - ext4 /dev/vda rw",
      line(40, "/proc"),
      line(41, "/proc/irq"),
      line(42, "/proc/bus"),
      line(43, "/proc/bus"),
      line(44, "/proc/irq"),
      line(45, "/proc/sys"),
      line(46, "/proc/sysrq-trigger"),
      "",
    ].join("\n");
    const kernel = ["/proc/bus", "/proc/irq", "/proc/mtrr", "/proc/sys", "/proc/sysrq-trigger"];
    expect(coveredByBwrap(kernel, mountinfo)).toEqual(["/proc/bus", "/proc/irq"]);
  });

  test("are none where nothing was read", () => {
    expect(coveredByBwrap(["/proc/sys", "/proc/irq"], "")).toEqual([]);
  });
});
