/** The short commit the work tree is at, for `dsh --version`; `unknown` outside a git checkout. */
export function currentCommit(cwd: string): string {
  const git = Bun.spawnSync(["git", "rev-parse", "--short=7", "HEAD"], {
    cwd,
    stdout: "pipe",
    stderr: "ignore",
  });
  const commit = git.stdout.toString().trim();
  return git.exitCode === 0 && /^[0-9a-f]{7,}$/.test(commit) ? commit : "unknown";
}
