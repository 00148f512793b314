/**
 * A real git repository of about 31,000 files, for what a sandboxed command costs in a large
 * project: the search benchmark's tree (`search-tree.ts`) with 12,000 of its build outputs, made
 * a repository by git itself (one commit of everything `.gitignore` does not list). Built once
 * per version under the temp dir and reused.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { searchTree } from "./search-tree.ts";

const VERSION = 1;
/** Build-output directories of the search tree kept (of its 64, 250 files each). */
const KEPT_OUTPUTS = 48;

export interface GitTree {
  readonly dir: string;
  /** Files in the tree, `.git` aside. */
  readonly files: number;
}

function run(argv: string[], cwd: string): void {
  const done = Bun.spawnSync(argv, {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" },
  });
  if (done.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${done.stderr.toString()}`);
}

/** Builds (or reuses) the repository and returns where it is. */
export function gitTree(): GitTree {
  const dir = join(tmpdir(), `dsh-bench-git-tree-v${VERSION}`);
  const marker = `${dir}.complete`;
  if (existsSync(marker) && existsSync(dir)) {
    return { dir, files: Number(readFileSync(marker, "utf8")) };
  }
  const source = searchTree();
  const temp = `${dir}.${process.pid}.tmp`;
  rmSync(temp, { recursive: true, force: true });
  run(["cp", "-a", source.dir, temp], tmpdir());
  rmSync(join(temp, ".git"), { recursive: true, force: true });
  rmSync(join(temp, ".complete"), { force: true });
  for (let i = KEPT_OUTPUTS; i < 64; i++) {
    rmSync(join(temp, "target", "debug", `deps${i}`), { recursive: true, force: true });
  }
  const files = Number(
    Bun.spawnSync(["sh", "-c", "find . -type f | wc -l"], { cwd: temp }).stdout.toString(),
  );
  run(["git", "init", "-q"], temp);
  run(["git", "add", "-A"], temp);
  run(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "tree"], temp);
  rmSync(dir, { recursive: true, force: true });
  renameSync(temp, dir);
  writeFileSync(marker, String(files));
  return { dir, files };
}
