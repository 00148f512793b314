/**
 * Builds the single-file `dsh` executable. The one place that knows the compile flags, used by
 * `bun run build`, the end-to-end tests and the benchmarks.
 *
 *   bun scripts/build.ts [OUTFILE] [--target=bun-linux-x64 ...]
 */
import { join } from "node:path";
import { currentCommit } from "./commit.ts";

/**
 * `--splitting`: each command's modules (`await import()` in `index.ts`, the agent's at the
 * first session) are a chunk of their own inside the executable, loaded and linked when that
 * command runs, so `dsh acp` does not load the tools, the sandbox or the chat before its first
 * message. A program without dynamic imports compiles to one chunk as before.
 *
 * `--no-compile-autoload-*`: a compiled Bun executable would otherwise read `.env` and
 * `bunfig.toml` from the directory it runs in. dsh runs in untrusted projects: a project's
 * `.env` could redirect `DSH_BASE_URL` (and with it the API key), and its `bunfig.toml` could
 * preload code.
 */
export const COMPILE_FLAGS = [
  "--compile",
  "--splitting",
  "--minify",
  "--bytecode",
  "--format=esm",
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
] as const;

const root = join(import.meta.dir, "..");

/** Compiles `entry` into `outfile`; rejects with bun's output when the build fails. */
export async function compile(
  entry: string,
  outfile: string,
  extra: readonly string[] = [],
): Promise<void> {
  // `dsh --version` names the commit the binary was built from.
  const define = `--define=DSH_BUILD_COMMIT=${JSON.stringify(currentCommit(root))}`;
  const proc = Bun.spawn(
    ["bun", "build", entry, ...COMPILE_FLAGS, define, ...extra, "--outfile", outfile],
    {
      cwd: root,
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [code, stdout, stderr] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ]);
  if (code !== 0) throw new Error(`bun build failed (${code}): ${stdout}${stderr}`);
}

if (import.meta.main) {
  const [outfile = join(root, "dist", "dsh"), ...extra] = Bun.argv.slice(2);
  await compile(join(root, "index.ts"), outfile, extra);
  process.stdout.write(`built ${outfile}\n`);
}
