/**
 * sandbox.md §4 case 29 and §3.3: when no backend works, sandboxed commands are refused with
 * the cause and the fix, never run unsandboxed. The probe is lazy, runs once, and is real.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SandboxUnavailableError } from "../../src/exec/errors.ts";
import { makeRunner, run, tempDir } from "./helpers.ts";
import { runIf } from "../support/gate.ts";
import { bwrapOnly } from "./sandbox-support.ts";

/** A bwrap of the test's own stands in for the real one: on Linux only, where bwrap is used. */
const linuxTest = runIf(process.platform === "linux", test.concurrent, "bwrap is Linux's backend");
const sandboxTest = bwrapOnly("these cases run the real bubblewrap");

/** An executable script in `dir`, owned by the test's user, mode 0755 unless told. */
function script(dir: string, name: string, body: string, mode = 0o755): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, mode);
  return path;
}

async function refused(runner: ReturnType<typeof makeRunner>, dir: string) {
  const error = await run(runner, dir, "touch ran").catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SandboxUnavailableError);
  expect(existsSync(join(dir, "ran"))).toBe(false);
  return error instanceof SandboxUnavailableError ? error.status : undefined;
}

describe("no working backend", () => {
  test.concurrent("DSH_SANDBOX=none refuses sandboxed modes, full access still runs", async () => {
    using dir = tempDir();
    const runner = makeRunner({ sandbox: "none" });
    const status = await refused(runner, dir.path);
    expect(status).toEqual({
      backend: "none",
      ok: false,
      reason: "sandboxing is turned off (DSH_SANDBOX=none)",
      fix: "unset DSH_SANDBOX or set it to auto, or choose the danger-full-access preset to run commands unsandboxed on purpose",
    });
    const full = await run(runner, dir.path, "echo $DSH_SANDBOX > ran", {
      sandbox: "danger-full-access",
    });
    expect([full.exitCode, readFileSync(join(dir.path, "ran"), "utf8")]).toEqual([0, "none\n"]);
  });

  linuxTest("a missing bwrap says so and how to install it", async () => {
    using dir = tempDir();
    const status = await refused(
      makeRunner({ sandbox: "auto", bwrapPath: join(dir.path, "no-bwrap") }),
      dir.path,
    );
    expect(status?.reason).toBe("bubblewrap (bwrap) is not installed");
    expect(status?.fix).toContain("apt-get install bubblewrap");
  });

  linuxTest("a bwrap that others may write is not trusted", async () => {
    using dir = tempDir();
    const bwrap = script(dir.path, "bwrap", 'exec /usr/bin/bwrap "$@"', 0o777);
    const status = await refused(makeRunner({ sandbox: "auto", bwrapPath: bwrap }), dir.path);
    expect(status?.reason).toBe(
      `refusing to use ${bwrap}: ${bwrap} is writable by group or others`,
    );
  });

  linuxTest("a probe that hangs is cut off and reported", async () => {
    using dir = tempDir();
    const bwrap = script(dir.path, "bwrap", "exec sleep 30");
    const status = await refused(
      makeRunner({ sandbox: "auto", bwrapPath: bwrap, limits: { probeTimeoutMs: 200 } }),
      dir.path,
    );
    expect(status?.reason).toBe("the sandbox probe did not finish within its time limit");
  });

  sandboxTest(
    "user namespaces blocked (nested bwrap --disable-userns): cause and fix",
    async () => {
      using dir = tempDir();
      const outer =
        "exec /usr/bin/bwrap --unshare-user --disable-userns --ro-bind / / --dev /dev --proc /proc " +
        '--bind /tmp /tmp -- /usr/bin/bwrap "$@"';
      const status = await refused(
        makeRunner({ sandbox: "auto", bwrapPath: script(dir.path, "bwrap", outer) }),
        dir.path,
      );
      expect(status?.reason).toStartWith("user namespaces are disabled or exhausted (bwrap: ");
      expect(status?.fix).toContain("user.max_user_namespaces");
    },
  );
});

describe("the probe", () => {
  sandboxTest("a masked path that vanished under the probe is a race, tried again", async () => {
    using dir = tempDir();
    const once = join(dir.path, "failed-once");
    // The first sandboxed run fails as bwrap does when a service socket went away between the
    // plan and the mounts; later runs are the real bwrap.
    const body = [
      `if [ "$1" != --version ] && [ ! -e ${once} ]; then`,
      `  touch ${once}; echo "bwrap: Can't create file at /run/docker.sock: Read-only file system" >&2; exit 1`,
      "fi",
      'exec /usr/bin/bwrap "$@"',
    ].join("\n");
    const runner = makeRunner({ sandbox: "auto", bwrapPath: script(dir.path, "bwrap", body) });
    expect(await runner.sandbox()).toEqual({ backend: "bwrap", ok: true });
    expect(existsSync(once)).toBe(true);
  });

  sandboxTest("runs lazily, once per runner, and runs the real plan", async () => {
    using dir = tempDir();
    const log = join(dir.path, "calls");
    const bwrap = script(dir.path, "bwrap", `echo "$*" >> ${log}\nexec /usr/bin/bwrap "$@"`);
    const runner = makeRunner({ sandbox: "auto", bwrapPath: bwrap });
    expect(existsSync(log)).toBe(false);
    const [a, b] = await Promise.all([runner.sandbox(), runner.sandbox()]);
    expect([a, b]).toEqual([
      { backend: "bwrap", ok: true },
      { backend: "bwrap", ok: true },
    ]);
    expect((await run(runner, dir.path, "echo ok")).output).toBe("ok\n");
    const calls = readFileSync(log, "utf8").trim().split("\n");
    expect(calls.length).toBe(3);
    expect(calls[0]).toBe("--version");
    // The probe shows what the sandbox mounted, so that bwrap's own cover is not bound again.
    expect(calls[1]).toMatch(
      /--cap-drop ALL .*--ro-bind \/ \/ .*-- \/(usr\/)?bin\/cat \/proc\/self\/mountinfo$/,
    );
  });
});
