/**
 * Running a fixture as an unprivileged user (nobody, 65534) wherever the clone is. The clone may
 * sit in a directory only its owner can enter (a `mktemp -d` folder, /root), so nobody could
 * neither read the fixture and the sources it imports nor start in the clone: the fixture is
 * bundled into one file in a fresh directory anyone may read, and runs there.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

/** The argv prefix that runs what follows as nobody, with no supplementary groups. */
export const AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"];

export interface UnprivilegedFixture extends Disposable {
  /** The argv that runs the bundled fixture as nobody with `args`. */
  argv(...args: string[]): string[];
  /** The directory the bundle is in, readable by anyone: the process's working directory. */
  readonly cwd: string;
}

/** Bundles `fixture` (a path) with everything it imports; disposing removes the bundle. */
export async function unprivilegedFixture(fixture: string): Promise<UnprivilegedFixture> {
  const cwd = mkdtempSync(join(tmpdir(), "dsh-nobody-"));
  chmodSync(cwd, 0o755);
  const built = await Bun.build({ entrypoints: [fixture], target: "bun", outdir: cwd });
  if (!built.success) throw new AggregateError(built.logs, `could not bundle ${fixture}`);
  const script = join(cwd, `${basename(fixture, ".ts")}.js`);
  chmodSync(script, 0o644);
  return {
    cwd,
    argv: (...args) => [...AS_NOBODY, process.execPath, script, ...args],
    [Symbol.dispose]: () => rmSync(cwd, { recursive: true, force: true }),
  };
}
