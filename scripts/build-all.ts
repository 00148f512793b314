/**
 * `bun run build:all`: cross-compiles dsh for every release target with the project's compile
 * flags, packs each as the ACP registry and Homebrew expect (`tar.gz` for Unix, `zip` for
 * Windows, the executable at the archive's root) and writes `<archive>.sha256` beside it
 * (`sha256sum` format). Output: `dist/release/`.
 *
 *   bun scripts/build-all.ts [--only=linux-x64,darwin-arm64] [--out=DIR]
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { compile } from "./build.ts";
import { type ReleaseTarget, TARGETS, archiveName } from "./targets.ts";

const root = join(import.meta.dir, "..");

/** Builds, packs and checksums one target into `out`; returns the archive's path. */
export async function buildTarget(target: ReleaseTarget, out: string): Promise<string> {
  const stage = join(out, `.stage-${target.name}`);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  try {
    await compile(join(root, "index.ts"), join(stage, target.executable), [
      `--target=${target.bunTarget}`,
    ]);
    const archive = join(out, archiveName(target));
    rmSync(archive, { force: true });
    const pack =
      target.archive === "zip"
        ? ["zip", "-q", "-X", archive, target.executable]
        : ["tar", "-czf", archive, "--owner=0", "--group=0", target.executable];
    await run(pack, stage);
    const digest = new Bun.CryptoHasher("sha256").update(await Bun.file(archive).bytes());
    await Bun.write(`${archive}.sha256`, `${digest.digest("hex")}  ${archiveName(target)}\n`);
    return archive;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

async function run(argv: string[], cwd: string): Promise<void> {
  const proc = Bun.spawn(argv, { cwd, stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`${argv[0]} failed (${code}): ${stderr}`);
}

if (import.meta.main) {
  const option = (name: string) =>
    Bun.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const only = option("only")?.split(",");
  const out = option("out") ?? join(root, "dist", "release");
  mkdirSync(out, { recursive: true });
  const targets = TARGETS.filter((target) => only === undefined || only.includes(target.name));
  for (const target of targets) {
    const archive = await buildTarget(target, out);
    const size = Bun.file(archive).size;
    process.stdout.write(`${archiveName(target)}  ${(size / 1e6).toFixed(1)} MB\n`);
  }
}
