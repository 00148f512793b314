/**
 * The private home the sandbox suites give the host's git (`tests/exec/git-support.ts`): one
 * per test process, outside the temp directories the sandbox binds, removed by the preload's
 * global `afterAll` (bun test runs no `exit` handlers).
 */
import { rmSync } from "node:fs";

export const GIT_HOME = `/var/tmp/dsh-git-home-${process.pid}`;

/** Removes this process's git home, if a suite made one. */
export function removeGitHome(): void {
  rmSync(GIT_HOME, { recursive: true, force: true });
}
