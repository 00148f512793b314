/**
 * Overhead of the sandbox: median wall time of `true` run through the command runner,
 * sandboxed (workspace-write) against unsandboxed, N runs each, interleaved.
 * Run: bun bench/sandbox.ts [N]
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCommandRunner } from "../src/exec/runner.ts";
import type { CommandRunner } from "../src/exec/types.ts";
import type { SandboxMode } from "../src/permission/knobs.ts";
import { silentLogger } from "../src/log.ts";
import { emit, size } from "./lib/figures.ts";
import { median } from "./stats.ts";

const runs = size(Number(process.argv[2] ?? 50), 3);
const dir = realpathSync(mkdtempSync(join(tmpdir(), "dsh-bench-")));
const runner = createCommandRunner({
  env: { PATH: process.env.PATH, LANG: "C.UTF-8" },
  sandbox: "auto",
  home: process.env.HOME ?? "/nonexistent",
  stateDir: join(dir, "state-outside-view"),
  logger: silentLogger,
});

async function once(r: CommandRunner, sandbox: SandboxMode): Promise<number> {
  const start = performance.now();
  const request = { command: "true", cwd: dir, workspace: dir, sandbox };
  const result = await r.run(request, { signal: new AbortController().signal });
  if (result.exitCode !== 0) throw new Error(`true failed under ${sandbox}: ${result.output}`);
  return performance.now() - start;
}

try {
  const status = await runner.sandbox();
  if (!status.ok) throw new Error(`no sandbox backend: ${status.reason}`);
  await once(runner, "workspace-write");
  await once(runner, "danger-full-access");
  const sandboxed: number[] = [];
  const plain: number[] = [];
  for (let i = 0; i < runs; i++) {
    sandboxed.push(await once(runner, "workspace-write"));
    plain.push(await once(runner, "danger-full-access"));
  }
  const s = median(sandboxed);
  const p = median(plain);
  console.log(`backend: ${status.backend}, runs: ${runs} each`);
  console.log(`median sandboxed (workspace-write): ${s.toFixed(1)} ms`);
  console.log(`median unsandboxed:                 ${p.toFixed(1)} ms`);
  console.log(
    `overhead:                           ${(s - p).toFixed(1)} ms (${(s / p).toFixed(2)}x)`,
  );
  emit([
    {
      name: "one sandboxed `true` (floor: unsandboxed)",
      unit: "ms",
      samples: sandboxed,
      floor: plain,
    },
  ]);
} finally {
  await runner[Symbol.asyncDispose]();
  rmSync(dir, { recursive: true, force: true });
}
