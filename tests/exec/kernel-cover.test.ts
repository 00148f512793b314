/**
 * The global `/proc` entries bwrap's own `--proc` already binds read-only are not bound again:
 * only an entry a sandbox shows mounted read-only right on its own proc (bwrap's cover, with
 * dsh's bind over it) counts as covered; one mounted by dsh alone, writable, or a mount of the
 * host's `/proc` that the root's bind brings along stays in the plan.
 */
import { describe, expect, test } from "bun:test";
import { coveredByBwrap } from "../../src/exec/kernel-guards.ts";

const line = (id: number, parent: number, point: string, options = "ro") =>
  `${id} ${parent} 0:${id} /${point.split("/").at(-1)} ${point} ${options},nosuid,nodev,noexec,relatime - proc proc rw`;

describe("kernel entries bwrap covers itself", () => {
  test("are the ones mounted twice, and only those", () => {
    const mountinfo = [
      "28 27 254:0 / / ro,relatime - ext4 /dev/vda rw",
      // The host's /proc, which the root's bind brings along, with a mount of its own.
      line(39, 28, "/proc"),
      line(38, 39, "/proc/sys"),
      // The sandbox's proc, bwrap's covers on it, then dsh's binds over them.
      line(40, 39, "/proc", "rw"),
      line(41, 40, "/proc/irq"),
      line(42, 40, "/proc/bus"),
      line(43, 42, "/proc/bus"),
      line(44, 41, "/proc/irq"),
      line(45, 40, "/proc/sys", "rw"),
      line(46, 45, "/proc/sys"),
      line(47, 40, "/proc/sysrq-trigger", "rw"),
      // dsh's bind alone, with no cover under it.
      line(48, 40, "/proc/mtrr"),
      "",
    ].join("\n");
    const kernel = ["/proc/bus", "/proc/irq", "/proc/mtrr", "/proc/sys", "/proc/sysrq-trigger"];
    expect(coveredByBwrap(kernel, mountinfo)).toEqual(["/proc/bus", "/proc/irq"]);
  });

  test("are none where nothing was read", () => {
    expect(coveredByBwrap(["/proc/sys", "/proc/irq"], "")).toEqual([]);
  });
});
