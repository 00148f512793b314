/**
 * As an unprivileged user (where bwrap, not dsh, makes network namespaces), a session's
 * commands enter its holder's namespace by the descriptors dsh opened when the holder started,
 * not by the holder's pid: dsh holds them while the holder lives, closes them once it has
 * ended, and the session's next command gets a new holder, entered the same way.
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { chmodSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../exec/helpers.ts";
import { sandboxStatus } from "../exec/sandbox-support.ts";
import { ensureBinary } from "../support/binary.ts";
import { runIf } from "../support/gate.ts";
import { sandboxSerialTest } from "../support/sandbox-gate.ts";
import { type UnprivilegedFixture, unprivilegedFixture } from "../support/unprivileged.ts";

const unprivilegedTest = runIf(
  process.getuid?.() === 0 &&
    Bun.which("setpriv") !== null &&
    Bun.which("nsenter") !== null &&
    sandboxStatus.ok &&
    sandboxStatus.backend === "bwrap",
  // One at a time: the session suites count the holders of the one unprivileged user.
  sandboxSerialTest,
  "it drops to an unprivileged user with setpriv, which needs root, and needs bwrap and nsenter",
);

describe("a session's holder, by descriptor", () => {
  let fixture: UnprivilegedFixture;
  let binary: string;
  beforeAll(async () => {
    fixture = await unprivilegedFixture(join(import.meta.dir, "fixtures/holder-descriptors.ts"));
    // The clone may be where that user cannot go: dsh's binary (the bridge) is copied to it.
    binary = join(fixture.cwd, "dsh");
    copyFileSync(await ensureBinary(), binary);
    chmodSync(binary, 0o755);
  });
  afterAll(() => fixture?.[Symbol.dispose]());

  unprivilegedTest(
    "commands join the namespace dsh holds open; a holder that ended is let go",
    async () => {
      using dir = tempDir();
      chmodSync(dir.path, 0o777);
      const proc = Bun.spawn(fixture.argv(dir.path, binary), {
        cwd: fixture.cwd,
        stdio: ["ignore", "pipe", "pipe"],
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir.path },
      });
      const [out, err] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
      ]);
      expect({ code: await proc.exited, err }).toEqual({ code: 0, err: "" });
      const seen = JSON.parse(out);
      expect(seen.first).toMatch(/^net:\[\d+\]$/);
      // One descriptor of the holder's namespace while it lives; the command's own copies
      // are closed once it ended.
      expect(seen.whileAlive).toEqual([seen.first]);
      expect(seen.afterEnd).toEqual([]);
      // A new holder (a namespace's id may be given again once it is gone).
      expect(seen.second).toMatch(/^net:\[\d+\]$/);
      const [killed, holding] = seen.holders;
      expect(killed.length).toBeGreaterThan(0);
      expect(holding.length).toBeGreaterThan(0);
      expect(holding.filter((pid: string) => killed.includes(pid))).toEqual([]);
      expect(seen.afterNext).toEqual([seen.second]);
      // The command itself holds no descriptor of the holder's namespaces.
      expect(seen.commandNamespaceFds).toEqual([]);
    },
    60_000,
  );
});
