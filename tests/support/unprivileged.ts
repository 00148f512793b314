/**
 * Running a fixture as an unprivileged user wherever the clone is. The clone may sit in a
 * directory only its owner can enter (a `mktemp -d` folder, /root), so that user could neither
 * read the fixture and the sources it imports nor start in the clone: the fixture is bundled
 * into one file in a fresh directory anyone may read, and runs there.
 *
 * The user is one no account has, its own to each test process: the kernel counts a user's
 * processes machine-wide (RLIMIT_NPROC), so two suites running as one user at once (nobody)
 * would take each other's processes into their counts.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

/** The uid (and gid) of this test process's unprivileged user. */
export const UNPRIVILEGED_ID = 1_000_000_000 + process.pid;

/** The argv prefix that runs what follows as that user, with no supplementary groups. */
const AS_UNPRIVILEGED = [
  "setpriv",
  `--reuid=${UNPRIVILEGED_ID}`,
  `--regid=${UNPRIVILEGED_ID}`,
  "--clear-groups",
  "--",
];

export interface UnprivilegedFixture extends Disposable {
  /** The argv that runs the bundled fixture as the unprivileged user, with `args`. */
  argv(...args: string[]): string[];
  /** The directory the bundle is in, readable by anyone: the process's working directory. */
  readonly cwd: string;
}

/** Bundles `fixture` (a path) with everything it imports; disposing removes the bundle. */
export async function unprivilegedFixture(fixture: string): Promise<UnprivilegedFixture> {
  const cwd = mkdtempSync(join(tmpdir(), "dsh-unprivileged-"));
  chmodSync(cwd, 0o755);
  const built = await Bun.build({ entrypoints: [fixture], target: "bun", outdir: cwd });
  if (!built.success) throw new AggregateError(built.logs, `could not bundle ${fixture}`);
  const script = join(cwd, `${basename(fixture, ".ts")}.js`);
  chmodSync(script, 0o644);
  return {
    cwd,
    argv: (...args) => [...AS_UNPRIVILEGED, process.execPath, script, ...args],
    [Symbol.dispose]: () => rmSync(cwd, { recursive: true, force: true }),
  };
}
