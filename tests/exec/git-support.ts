/**
 * Real git for the sandbox suites: repositories made by git itself, and the user's git run on
 * the host afterwards with a private home, to see whether it executes a planted command.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GIT_HOME } from "../support/git-home.ts";

/** A home for the host's git that holds nothing of the real user's config. */
mkdirSync(GIT_HOME, { recursive: true });
writeFileSync(
  join(GIT_HOME, ".gitconfig"),
  '[user]\n\tname = t\n\temail = t@t\n[protocol "file"]\n\tallow = always\n[init]\n\tdefaultBranch = main\n',
);

/** The environment of every git the tests run: the private home and no system config. */
export const GIT_ENV: Record<string, string> = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: GIT_HOME,
  GIT_CONFIG_NOSYSTEM: "1",
  LANG: "C",
};

/** Runs git on the host in `dir`; throws with its output when it fails and `check` is set. */
export function git(dir: string, args: string[], check = true): string {
  const run = Bun.spawnSync(["git", "-C", dir, ...args], { env: GIT_ENV });
  const output = `${run.stdout.toString()}${run.stderr.toString()}`;
  if (check && run.exitCode !== 0) throw new Error(`git ${args.join(" ")} failed: ${output}`);
  return output;
}

/** A repository with one commit. */
export function initRepo(dir: string): void {
  mkdirSync(dir, { recursive: true });
  git(dir, ["init", "-q"]);
  writeFileSync(join(dir, "README"), "hello\n");
  git(dir, ["add", "README"]);
  git(dir, ["commit", "-qm", "first"]);
}

/** Shell text for the sandbox that makes git in `$1` commit as the test user. */
export const SANDBOX_GIT = "git -c user.name=t -c user.email=t@t -c protocol.file.allow=always";

/**
 * What the user and the editor run afterwards: status, diff, log, commit, fetch, each as git
 * would on the host. Returns the markers (planted commands' proof) that exist afterwards.
 */
export function userRunsGit(dir: string, markers: readonly string[]): string[] {
  for (const args of [
    ["status"],
    ["diff"],
    ["log", "-1"],
    ["commit", "-q", "--allow-empty", "-m", "user"],
    ["fetch", "--all"],
  ]) {
    git(dir, args, false);
  }
  return markers.filter((marker) => existsSync(marker));
}
