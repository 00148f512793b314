/**
 * The kernel's global settings stay the host's: every writable file under `/proc/sys`, the
 * other global `/proc` entries and `/sys` refuses to open for writing inside the sandbox, in
 * every sandboxed mode and as root (as dsh runs in containers and CI), and two sysctls written
 * with their own value are unchanged on the host.
 */
import { describe, expect } from "bun:test";
import { readFileSync } from "node:fs";
import { makeRunner, run, tempDir } from "./helpers.ts";
import { bwrapOnly } from "./sandbox-support.ts";

/** /proc and /sys are Linux's: macOS has neither (its sysctls are allowed by name, tests/macos). */
const sandboxTest = bwrapOnly("/proc and /sys exist on Linux only");

const runner = makeRunner();
const hostValue = (path: string) => readFileSync(path, "utf8");

/**
 * Shell text that tries to open every writable file below `roots` for appending (which
 * writes nothing, so a failure of the sandbox changes no setting) and prints the ones that
 * opened, then how many it tried.
 */
function openEachForWriting(roots: readonly string[]): string {
  return [
    "n=0",
    `for f in $(find ${roots.join(" ")} -type f -perm /222 2>/dev/null); do`,
    'n=$((n+1)); if : 2>/dev/null >>"$f"; then echo "WRITABLE $f"; fi; done',
    'echo "tried $n"',
  ].join("\n");
}

describe("global kernel interfaces (issue 9, class 1)", () => {
  for (const sandbox of ["workspace-write", "read-only"] as const) {
    sandboxTest(
      `no file of /proc/sys, /proc's global entries or /sys opens for writing (${sandbox})`,
      async () => {
        using dir = tempDir();
        // Every global entry of /proc (not a process's own, not a link into one), and /sys.
        const roots = [
          "$(find /proc -mindepth 1 -maxdepth 1 ! -name '[0-9]*' ! -name self ! -name thread-self ! -type l)",
          "/sys",
        ];
        const result = await run(runner, dir.path, openEachForWriting(roots), { sandbox });
        const tried = Number(/tried (\d+)/.exec(result.output)?.[1] ?? 0);
        expect(result.output.split("\n").filter((line) => line.startsWith("WRITABLE"))).toEqual([]);
        // The walk really reached the sysctls (there are hundreds on any Linux).
        expect(tried).toBeGreaterThan(100);
      },
    );
  }

  sandboxTest(
    "core_pattern and swappiness written with their own value: refused, host unchanged",
    async () => {
      using dir = tempDir();
      const files = ["/proc/sys/kernel/core_pattern", "/proc/sys/vm/swappiness"];
      const before = files.map(hostValue);
      const script = [
        ...files.map(
          (file) => `v=$(cat ${file}); printf '%s\\n' "$v" > ${file} && echo "wrote ${file}"`,
        ),
        "echo end",
      ].join("; ");
      const result = await run(runner, dir.path, script);
      expect(result.output).not.toContain("wrote");
      expect(result.output.match(/Read-only file system|Permission denied/g)?.length).toBe(2);
      expect(files.map(hostValue)).toEqual(before);
    },
  );

  sandboxTest("reading sysctls and /sys still works", async () => {
    using dir = tempDir();
    const result = await run(
      runner,
      dir.path,
      "cat /proc/sys/kernel/ostype; ls /sys | grep -c kernel",
    );
    expect(result.output).toBe("Linux\n1\n");
  });
});
