/** The sandbox probe's children inherit nothing of dsh's environment, its API key above all. */
import { expect, test } from "bun:test";
import { runIf } from "../support/gate.ts";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers.ts";

const linuxTest = runIf(process.platform === "linux", test, "bwrap is Linux's backend");

linuxTest("a bwrap probed at start-up never sees DSH_API_KEY", async () => {
  using dir = tempDir();
  const dump = join(dir.path, "env.txt");
  const bwrap = join(dir.path, "bwrap");
  writeFileSync(bwrap, `#!/bin/sh\nenv >> ${dump}\nexit 1\n`);
  chmodSync(bwrap, 0o755);
  const proc = Bun.spawn(["bun", join(import.meta.dir, "fixtures", "probe-once.ts"), bwrap], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DSH_API_KEY: "sk-probe-secret" },
    stdout: "pipe",
    stderr: "inherit",
  });
  const status = JSON.parse(await new Response(proc.stdout).text());
  expect(await proc.exited).toBe(0);
  expect(status.ok).toBe(false);
  const seen = readFileSync(dump, "utf8");
  expect(seen).toContain("PATH=");
  expect(seen).not.toContain("sk-probe-secret");
});
