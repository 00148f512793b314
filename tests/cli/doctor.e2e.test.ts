/** `dsh doctor` through the compiled binary: each check, and a non-zero exit when one fails. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliRig, startCliRig } from "../support/cli.ts";

let rig: CliRig;
beforeAll(async () => {
  rig = await startCliRig("dsh-doctor");
});
afterAll(async () => {
  await rig[Symbol.asyncDispose]();
});

test("a working setup passes every check and never prints the key", async () => {
  const project = rig.project("ok");
  const run = await rig.run(["doctor"], project);
  expect(run.stdout).toContain("✓ api key: from the environment (DSH_API_KEY or DEEPSEEK_API_KEY)");
  expect(run.stdout).toContain(`✓ endpoint: ${rig.server.url} answered 200`);
  expect(run.stdout).toContain("✓ model: deepseek-flash");
  expect(run.stdout).toContain(`✓ state dir: ${project.home} writable`);
  expect(run.stdout).toMatch(/[✓✗] sandbox: /);
  expect(run.stdout).not.toContain("test-key");
  expect(run.code).toBe(run.stdout.includes("✗") ? 1 : 0);
});

test("a missing key, an unknown model and a sandbox turned off are each named with a fix, exit 1", async () => {
  const project = rig.project("broken");
  const { DSH_API_KEY: _, ...env } = project.env;
  const run = await rig.run(["doctor"], project, {
    env: { ...env, DSH_MODEL: "my-local-model", DSH_SANDBOX: "none" },
  });
  expect(run.code).toBe(1);
  expect(run.stdout).toContain("✗ api key: missing: run dsh login, or set DSH_API_KEY");
  expect(run.stdout).toContain("model: my-local-model (not in the catalog; used as-is with");
  expect(run.stdout).toContain("✗ sandbox: sandboxing is turned off (DSH_SANDBOX=none); fix:");
});

test("a config file that does not parse is reported, exit 1", async () => {
  const project = rig.project("bad-config");
  writeFileSync(join(project.base, "config.toml"), "permission = 'everything'\n");
  const run = await rig.run(["doctor"], project);
  expect(run.code).toBe(1);
  expect(run.stdout).toContain("✗ config:");
  expect(run.stdout).toContain("permission");
});
