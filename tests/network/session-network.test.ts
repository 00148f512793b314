/**
 * A session's sandboxed commands share one network namespace as an unprivileged user (where
 * bwrap, not dsh, makes namespaces), through the real runner, bridge and holder: a server one
 * command started is reached by a later command of the session, not by another session's
 * command nor by the host; each command still has its own listener (its own proxy port and
 * questions); the holder ends with its session, and with a SIGKILLed dsh.
 */
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { chmodSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary } from "../support/binary.ts";
import { runIf } from "../support/gate.ts";
import { holders, holdersBecome } from "./holders.ts";
import { type UnprivilegedFixture, unprivilegedFixture } from "../support/unprivileged.ts";
import { tempDir } from "../exec/helpers.ts";
import { sandboxStatus } from "../exec/sandbox-support.ts";
import { sandboxSerialTest } from "../support/sandbox-gate.ts";

const unprivilegedTest = runIf(
  process.getuid?.() === 0 &&
    Bun.which("setpriv") !== null &&
    Bun.which("nsenter") !== null &&
    Bun.which("python3") !== null &&
    sandboxStatus.ok,
  // One at a time: each counts the holders of the one unprivileged user.
  sandboxSerialTest,
  "it drops to an unprivileged user with setpriv, which needs root, and needs nsenter and python3",
);

describe("a session's network as an unprivileged user", () => {
  let fixture: UnprivilegedFixture;
  let binary: string;
  beforeAll(async () => {
    fixture = await unprivilegedFixture(join(import.meta.dir, "fixtures/session-network.ts"));
    // The clone may be where that user cannot go: dsh's binary (the bridge) is copied to it.
    binary = join(fixture.cwd, "dsh");
    copyFileSync(await ensureBinary(), binary);
    chmodSync(binary, 0o755);
  });
  afterAll(() => fixture?.[Symbol.dispose]());

  const start = (workspace: string, mode: "end" | "kill") => {
    const proc = Bun.spawn(fixture.argv(workspace, binary, mode), {
      cwd: fixture.cwd,
      stdio: ["pipe", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: workspace },
    });
    const lines = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    const next = async (): Promise<unknown> => {
      while (!buffered.includes("\n")) {
        const { done, value } = await lines.read();
        if (done) {
          const stderr = await new Response(proc.stderr).text();
          throw new Error(`the fixture ended early: ${buffered}${stderr}`);
        }
        buffered += value;
      }
      const at = buffered.indexOf("\n");
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      return JSON.parse(line);
    };
    return { proc, next };
  };

  const expected = {
    later: "200",
    other: "000",
    host: "unreachable",
    asked: [['{"host":"127.0.0.9","port":81}'], ['{"host":"127.0.0.9","port":82}']],
  };

  unprivilegedTest(
    "a server one command started is reached by the session's next command only; the holder ends with the session",
    async () => {
      using dir = tempDir();
      chmodSync(dir.path, 0o777);
      const { proc, next } = start(dir.path, "end");
      try {
        const seen = (await next()) as typeof expected & { proxies: string[] };
        const ports = seen.proxies.map((text) => text.split("\n")[0]);
        expect({ ...seen, proxies: undefined }).toEqual({ ...expected, proxies: undefined });
        // Two commands at once in one session: a listener (a port) each.
        expect(new Set(ports).size).toBe(2);
        for (const port of ports) expect(port).toMatch(/^http:\/\/127\.0\.0\.1:410\d\d$/);
        // The server holds 41082, which one of them was given: its bridge took another.
        expect(ports).not.toContain("http://127.0.0.1:41082");
        // Sessions a and b hold one each.
        expect(holders().length).toBe(2);
        // Only now does the fixture end session a.
        proc.stdin.write("end\n");
        proc.stdin.flush();
        expect(await next()).toEqual({ ended: true });
        expect(await holdersBecome(1)).toBe(1);
        proc.stdin.end();
        expect(await proc.exited).toBe(0);
        expect(await holdersBecome(0)).toBe(0);
      } finally {
        proc.kill("SIGKILL");
      }
    },
  );

  unprivilegedTest("the holders end with a dsh that is SIGKILLed", async () => {
    using dir = tempDir();
    chmodSync(dir.path, 0o777);
    const { proc, next } = start(dir.path, "kill");
    const seen = (await next()) as typeof expected;
    expect(seen.later).toBe("200");
    expect(holders().length).toBe(2);
    proc.kill("SIGKILL");
    await proc.exited;
    expect(await holdersBecome(0)).toBe(0);
  });
});
