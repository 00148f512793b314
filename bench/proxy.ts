/**
 * What dsh's proxy costs a sandboxed command's traffic: curl's own time per request (a fresh
 * connection each) and its speed on a 100 MB download, through the proxy inside the sandbox
 * against the same curl run outside it connecting directly, interleaved in one run. The
 * sandbox's start-up is not in these figures (curl measures itself); `sandbox.ts` has it.
 * Run: bun bench/proxy.ts [REQUESTS]
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCommandRunner } from "../src/exec/runner.ts";
import type { SandboxMode } from "../src/permission/knobs.ts";
import { silentLogger } from "../src/log.ts";
import { createNetworkService } from "../src/network/service.ts";
import { ensureBinary } from "../tests/support/binary.ts";
import { emit, size } from "./lib/figures.ts";
import { median } from "./stats.ts";

const requests = size(Number(process.argv[2] ?? 200), 10);
const rounds = size(5, 1);
const bytes = size(100 * 1024 * 1024, 4 * 1024 * 1024);
const chunk = new Uint8Array(1024 * 1024).fill(120);
const server = Bun.serve({
  hostname: "127.0.0.2",
  port: 0,
  fetch(request) {
    if (new URL(request.url).pathname !== "/big") return new Response("ok\n");
    let sent = 0;
    return new Response(
      new ReadableStream({
        pull(controller) {
          const left = bytes - sent;
          if (left <= 0) return controller.close();
          const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
          sent += piece.length;
          controller.enqueue(piece);
        },
      }),
      { headers: { "content-length": String(bytes) } },
    );
  },
});
const authority = `127.0.0.2:${server.port}`;
const network = createNetworkService({
  config: { allow: [authority], deny: [] },
  savedHosts: () => [],
  logger: silentLogger,
  selfArgv: [await ensureBinary()],
});
const runner = createCommandRunner({
  env: { PATH: process.env.PATH, LANG: "C.UTF-8" },
  sandbox: "auto",
  home: process.env.HOME ?? "/nonexistent",
  stateDir: "/nonexistent-state",
  logger: silentLogger,
  network,
});
const dir = realpathSync(mkdtempSync(join(tmpdir(), "dsh-bench-proxy-")));

/** curl's numbers, one per line, from one command in `sandbox`. */
async function curl(sandbox: SandboxMode, args: string): Promise<number[]> {
  const result = await runner.run(
    { command: `curl -sS ${args}`, cwd: dir, workspace: dir, sandbox },
    { signal: new AbortController().signal },
  );
  if (result.exitCode !== 0) throw new Error(`curl failed under ${sandbox}: ${result.output}`);
  return result.output.trim().split(/\s+/).map(Number);
}

const small = Array.from({ length: requests }, () => `-o /dev/null http://${authority}/small`).join(
  " ",
);
const perRequest = `-H 'Connection: close' -w '%{time_total}\\n' ${small}`;
const big = `-w '%{speed_download}\\n' -o /dev/null http://${authority}/big`;

try {
  const proxied: number[] = [];
  const direct: number[] = [];
  const forwarded: number[] = [];
  const tunnelled: number[] = [];
  const straight: number[] = [];
  for (let round = 0; round < rounds; round++) {
    proxied.push(...(await curl("workspace-write", perRequest)).map((s) => s * 1000));
    direct.push(...(await curl("danger-full-access", perRequest)).map((s) => s * 1000));
    forwarded.push(...(await curl("workspace-write", big)).map((b) => b / 1e6));
    tunnelled.push(...(await curl("workspace-write", `-p ${big}`)).map((b) => b / 1e6));
    straight.push(...(await curl("danger-full-access", big)).map((b) => b / 1e6));
  }
  const added = median(proxied) - median(direct);
  console.log(`requests: ${requests} x ${rounds}; download: ${bytes / 1e6} MB x ${rounds}`);
  console.log(
    `per request: proxied ${median(proxied).toFixed(2)} ms, direct ${median(direct).toFixed(2)} ms, added ${added.toFixed(2)} ms`,
  );
  console.log(
    `download: forwarded ${median(forwarded).toFixed(0)} MB/s, tunnelled ${median(tunnelled).toFixed(0)} MB/s, direct ${median(straight).toFixed(0)} MB/s`,
  );
  emit([
    {
      name: "one request through the proxy (floor: direct)",
      unit: "ms",
      samples: proxied,
      floor: direct,
    },
    {
      name: "100 MB through the proxy, forwarded (floor: direct)",
      unit: "MB/s",
      samples: forwarded,
      floor: straight,
    },
    {
      name: "100 MB through the proxy, CONNECT tunnel (floor: direct)",
      unit: "MB/s",
      samples: tunnelled,
      floor: straight,
    },
  ]);
} finally {
  await runner[Symbol.asyncDispose]();
  await network[Symbol.asyncDispose]();
  await server.stop(true);
  rmSync(dir, { recursive: true, force: true });
}
