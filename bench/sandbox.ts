/**
 * Overhead of the sandbox: median wall time of `true` run through the command runner,
 * sandboxed (workspace-write) against unsandboxed, and sandboxed in a 31,000-file git
 * repository (`lib/git-tree.ts`) against sandboxed in an empty project (the walks for `.git`
 * entries before and after each command, and the protections of a real repository), N runs
 * each, interleaved. The state directory exists, as in a real run, so in the empty project each
 * sandboxed command also binds the placeholders of the missing protected project configuration
 * read-only (made by the first command, they linger between commands) and shows git an excludes
 * file for them; a second project where every protected entry exists (bound read-only, nothing
 * to make) is that figure's floor. What the sandbox adds (sandboxed less unsandboxed, run by run)
 * is measured against what bubblewrap itself adds: `bwrap … true` over `sh -c true`, spawned
 * straight from this process in the same rounds (issue 30's target: at most twice that).
 * Run: bun bench/sandbox.ts [N]
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createCommandRunner } from "../src/exec/runner.ts";
import type { CommandRunner } from "../src/exec/types.ts";
import type { SandboxMode } from "../src/permission/knobs.ts";
import { PROJECT_CONFIG } from "../src/permission/project-config.ts";
import { silentLogger } from "../src/log.ts";
import { createNetworkService } from "../src/network/service.ts";
import { emit, size } from "./lib/figures.ts";
import { gitTree } from "./lib/git-tree.ts";
import { median } from "./stats.ts";

const runs = size(Number(process.argv[2] ?? 50), 3);
const dir = realpathSync(mkdtempSync(join(tmpdir(), "dsh-bench-")));
const empty = join(dir, "project");
const configured = join(dir, "configured");
const stateDir = join(dir, "state-outside-view");
for (const path of [empty, configured, stateDir]) mkdirSync(path);
for (const entry of PROJECT_CONFIG) {
  const path = join(configured, ...entry.path.split("/"));
  mkdirSync(entry.type === "dir" ? path : dirname(path), { recursive: true });
  if (entry.type === "file") writeFileSync(path, "");
}
// The network as dsh runs it: through its proxy, each sandboxed command in its session's
// network (the bash tool's `networkScope`), not in one made for it alone.
const network = createNetworkService({
  config: undefined,
  savedHosts: () => [],
  logger: silentLogger,
});
const runner = createCommandRunner({
  env: { PATH: process.env.PATH, LANG: "C.UTF-8" },
  sandbox: "auto",
  home: process.env.HOME ?? "/nonexistent",
  stateDir,
  logger: silentLogger,
  network,
});

const repo = gitTree();
const SESSION = "bench-session";

const BARE_BWRAP = [
  "bwrap",
  ...["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"],
  ...["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "true"],
];

/** One spawn of `argv` straight from this process, to its exit. */
async function bare(argv: string[]): Promise<number> {
  const start = performance.now();
  const code = await Bun.spawn(argv, { stdio: ["ignore", "ignore", "inherit"] }).exited;
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}`);
  return performance.now() - start;
}

async function once(r: CommandRunner, sandbox: SandboxMode, workspace = empty): Promise<number> {
  const start = performance.now();
  const request = { command: "true", cwd: workspace, workspace, sandbox, networkScope: SESSION };
  const result = await r.run(request, { signal: new AbortController().signal });
  if (result.exitCode !== 0) throw new Error(`true failed under ${sandbox}: ${result.output}`);
  return performance.now() - start;
}

try {
  const status = await runner.sandbox();
  if (!status.ok) throw new Error(`no sandbox backend: ${status.reason}`);
  await once(runner, "workspace-write");
  await once(runner, "workspace-write", configured);
  await once(runner, "danger-full-access");
  await once(runner, "workspace-write", repo.dir);
  const sandboxed: number[] = [];
  const withConfig: number[] = [];
  const plain: number[] = [];
  const inRepo: number[] = [];
  const added: number[] = [];
  const bwrapAdds: number[] = [];
  for (let i = 0; i < runs; i++) {
    sandboxed.push(await once(runner, "workspace-write"));
    withConfig.push(await once(runner, "workspace-write", configured));
    plain.push(await once(runner, "danger-full-access"));
    inRepo.push(await once(runner, "workspace-write", repo.dir));
    added.push((sandboxed.at(-1) ?? 0) - (plain.at(-1) ?? 0));
    bwrapAdds.push((await bare(BARE_BWRAP)) - (await bare(["sh", "-c", "true"])));
  }
  const s = median(sandboxed);
  const c = median(withConfig);
  const p = median(plain);
  const r = median(inRepo);
  console.log(`backend: ${status.backend}, runs: ${runs} each`);
  console.log(`median sandboxed (workspace-write):  ${s.toFixed(1)} ms`);
  console.log(`  where protected config exists:     ${c.toFixed(1)} ms`);
  console.log(`median unsandboxed:                  ${p.toFixed(1)} ms`);
  console.log(
    `overhead:                            ${(s - p).toFixed(1)} ms (${(s / p).toFixed(2)}x)`,
  );
  console.log(
    `median sandboxed, ${repo.files} files:  ${r.toFixed(1)} ms (${(r / s).toFixed(2)}x the empty project)`,
  );
  console.log(
    `what the sandbox adds:               ${median(added).toFixed(1)} ms (bubblewrap's own: ${median(bwrapAdds).toFixed(1)} ms)`,
  );
  emit([
    {
      name: "one sandboxed `true` (floor: unsandboxed)",
      unit: "ms",
      samples: sandboxed,
      floor: plain,
    },
    {
      name: "what the sandbox adds to one `true` (floor: what bubblewrap itself adds, `bwrap … true` over `sh -c true`)",
      unit: "ms",
      samples: added,
      floor: bwrapAdds,
      target: { op: "<=", value: 2, of: "ratio" },
    },
    {
      name: "one sandboxed `true` in a 31,000-file git repository (floor: in an empty project)",
      unit: "ms",
      samples: inRepo,
      floor: sandboxed,
      target: { op: "<=", value: 1.5, of: "ratio" },
    },
    {
      name: "placeholders: sandboxed `true` in an empty project (floor: every protected entry exists)",
      unit: "ms",
      samples: sandboxed,
      floor: withConfig,
    },
  ]);
} finally {
  await runner[Symbol.asyncDispose]();
  await network[Symbol.asyncDispose]();
  rmSync(dir, { recursive: true, force: true });
}
