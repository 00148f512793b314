/**
 * What the network adds to a sandboxed command: median wall time of `true` run through the
 * command runner, sandboxed (workspace-write, with the network through dsh's proxy as dsh runs
 * it) against the same with no network at all, and through the bridge (where dsh may not make
 * the namespace itself, i.e. not as root), and in a session's shared namespace (a command of a
 * session, as `bash` runs it), both the one dsh makes and the one a holder keeps for the bridge
 * (as a non-root user runs it: `nsenter` into the holder, then bwrap); N runs each,
 * interleaved, rotated.
 * Run: bun bench/sandbox-network.ts [N]
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openHolders } from "../src/exec/network-holder.ts";
import { createCommandRunner } from "../src/exec/runner.ts";
import type { CommandRunner } from "../src/exec/types.ts";
import type { SandboxMode } from "../src/permission/knobs.ts";
import { silentLogger } from "../src/log.ts";
import { type NetworkService, createNetworkService } from "../src/network/service.ts";
import { ensureBinary } from "../tests/support/binary.ts";
import { emit, size } from "./lib/figures.ts";
import { median } from "./stats.ts";

const runs = size(Number(process.argv[2] ?? 50), 3);
const dir = realpathSync(mkdtempSync(join(tmpdir(), "dsh-bench-")));
const binary = await ensureBinary();
const networks: NetworkService[] = [];
const runnerWith = (namespaces?: "auto" | "never") => {
  const network =
    namespaces === undefined
      ? undefined
      : createNetworkService({
          config: undefined,
          savedHosts: () => [],
          logger: silentLogger,
          namespaces,
          selfArgv: [binary],
          holders: () => openHolders(silentLogger),
        });
  if (network !== undefined) networks.push(network);
  return createCommandRunner({
    env: { PATH: process.env.PATH, LANG: "C.UTF-8" },
    sandbox: "auto",
    home: process.env.HOME ?? "/nonexistent",
    stateDir: join(dir, "state-outside-view"),
    logger: silentLogger,
    ...(network === undefined ? {} : { network }),
  });
};
const runner = runnerWith("auto");
const offline = runnerWith();
const bridged = runnerWith("never");

async function once(
  r: CommandRunner,
  sandbox: SandboxMode,
  networkScope?: string,
): Promise<number> {
  const start = performance.now();
  const request = {
    command: "true",
    cwd: dir,
    workspace: dir,
    sandbox,
    ...(networkScope === undefined ? {} : { networkScope }),
  };
  const result = await r.run(request, { signal: new AbortController().signal });
  if (result.exitCode !== 0) throw new Error(`true failed under ${sandbox}: ${result.output}`);
  return performance.now() - start;
}

try {
  const status = await runner.sandbox();
  if (!status.ok) throw new Error(`no sandbox backend: ${status.reason}`);
  for (const r of [runner, offline, bridged]) await once(r, "workspace-write");
  await once(runner, "danger-full-access");
  const sandboxed: number[] = [];
  const plain: number[] = [];
  const noNetwork: number[] = [];
  const bridge: number[] = [];
  const shared: number[] = [];
  const sharedBridge: number[] = [];
  await once(runner, "workspace-write", "bench-session");
  await once(bridged, "workspace-write", "bench-session");
  const variants: [CommandRunner, SandboxMode, number[], string?][] = [
    [runner, "workspace-write", sandboxed],
    [runner, "danger-full-access", plain],
    [offline, "workspace-write", noNetwork],
    [bridged, "workspace-write", bridge],
    [runner, "workspace-write", shared, "bench-session"],
    [bridged, "workspace-write", sharedBridge, "bench-session"],
  ];
  for (let i = 0; i < runs; i++) {
    // Rotated, so what one variant leaves behind (the bridge's exit) hits each one alike.
    for (let k = 0; k < variants.length; k++) {
      const [r, mode, samples, scope] = variants[
        (i + k) % variants.length
      ] as (typeof variants)[number];
      samples.push(await once(r, mode, scope));
    }
  }
  const s = median(sandboxed);
  const p = median(plain);
  const n = median(noNetwork);
  console.log(`backend: ${status.backend}, runs: ${runs} each`);
  console.log(`median sandboxed (workspace-write): ${s.toFixed(1)} ms`);
  console.log(`median unsandboxed:                 ${p.toFixed(1)} ms`);
  console.log(
    `overhead:                           ${(s - p).toFixed(1)} ms (${(s / p).toFixed(2)}x)`,
  );
  console.log(
    `network's share: ${(s - n).toFixed(1)} ms; through the bridge: ${(median(bridge) - n).toFixed(1)} ms; in a session's shared namespace: ${(median(shared) - n).toFixed(1)} ms; through the bridge in a session's held namespace: ${(median(sharedBridge) - n).toFixed(1)} ms`,
  );
  emit([
    {
      name: "one sandboxed `true` (floor: the same with no network at all)",
      unit: "ms",
      samples: sandboxed,
      floor: noNetwork,
    },
    {
      name: "one sandboxed `true`, network through the bridge (floor: no network)",
      unit: "ms",
      samples: bridge,
      floor: noNetwork,
    },
    {
      name: "one sandboxed `true` in a session's shared namespace (floor: no network)",
      unit: "ms",
      samples: shared,
      floor: noNetwork,
    },
    {
      name: "one sandboxed `true` through the bridge in a session's held namespace (floor: no network)",
      unit: "ms",
      samples: sharedBridge,
      floor: noNetwork,
    },
  ]);
} finally {
  for (const r of [runner, offline, bridged]) await r[Symbol.asyncDispose]();
  for (const network of networks) await network[Symbol.asyncDispose]();
  rmSync(dir, { recursive: true, force: true });
}
