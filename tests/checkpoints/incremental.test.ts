/**
 * Incremental checkpoints over real git, real temp dirs and the kernel's real inotify: what
 * changed between two checkpoints (by any process) is in the second, and only what the watch
 * reported is staged again; an unchanged root runs no git at all, and whatever the watch cannot
 * vouch for (a lost event) is staged the full way. git is a wrapper that logs each call, so the
 * tests see which way each checkpoint went.
 */
import { afterEach, describe, expect, test } from "bun:test";
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type SessionCheckpoints,
  openSessionCheckpoints,
} from "../../src/checkpoints/session-checkpoints.ts";
import { loadTreeWatcher } from "../../src/checkpoints/tree-watch.ts";
import { silentLogger } from "../../src/log.ts";

const made: string[] = [];
const opened: SessionCheckpoints[] = [];
afterEach(() => {
  for (const checkpoints of opened.splice(0)) checkpoints.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const realGit = Bun.which("git");
/** Whether this machine lets a root be watched now (inotify, and an instance to spare). */
function canWatch(watcher: Awaited<ReturnType<typeof loadTreeWatcher>>): boolean {
  const watch = watcher?.(tmpdir());
  watch?.close();
  return watch !== undefined;
}
const watching = canWatch(await loadTreeWatcher());

/** A project, a store, and a git that logs its subcommands to `calls()`. */
function place() {
  const base = mkdtempSync(join(tmpdir(), "dsh-checkpoint-incremental-"));
  made.push(base);
  const root = join(base, "project");
  const bin = join(base, "bin");
  mkdirSync(root);
  mkdirSync(bin);
  const log = join(base, "git-calls");
  writeFileSync(log, "");
  // The subcommand is the first argument after the `-c name=value` pairs.
  writeFileSync(
    join(bin, "git"),
    `#!/bin/sh\nfor a; do case "$prev" in -c) ;; *) case "$a" in -c) ;; *) echo "$a" >> '${log}'; break;; esac;; esac; prev="$a"; done\nexec '${realGit}' "$@"\n`,
  );
  chmodSync(join(bin, "git"), 0o755);
  const checkpoints = openSessionCheckpoints({
    home: join(base, "home"),
    sessionId: "s",
    roots: [root],
    settings: { enabled: true, maxSizeMb: 64 },
    path: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    logger: silentLogger,
  });
  opened.push(checkpoints);
  const calls = () => readFileSync(log, "utf8").split("\n").filter(Boolean);
  const since = (count: number) => calls().slice(count);
  return { root, checkpoints, calls, since };
}

/** The paths the session changed since its first checkpoint, as `/diff` lists them. */
async function changed(checkpoints: SessionCheckpoints): Promise<string[]> {
  const text = await checkpoints.diff();
  const list = text.split("\n\n")[0] ?? "";
  return list
    .split("\n")
    .filter(Boolean)
    .map((line) => line.replace(/^\w\t/, ""))
    .sort();
}

// Elsewhere (macOS, no `bun:ffi`, every inotify instance of the user taken by other programs)
// every checkpoint is the full scan the other suites prove.
describe.skipIf(!watching)("incremental checkpoints (inotify)", () => {
  test("an unchanged root runs no git, and a file a command changed is in the next checkpoint", async () => {
    const { root, checkpoints, calls, since } = place();
    writeFileSync(join(root, "a.txt"), "one\n");
    await checkpoints.before("t0");
    let count = calls().length;
    await checkpoints.after("t0");
    expect(since(count)).toEqual([]);
    const run = Bun.spawnSync(
      ["sh", "-c", "echo two > a.txt && mkdir -p new/deep && echo x > new/deep/b.txt"],
      {
        cwd: root,
      },
    );
    expect(run.exitCode).toBe(0);
    count = calls().length;
    await checkpoints.before("t1");
    // Only the reported paths were staged: no `git add` of the whole tree.
    expect(since(count)).not.toContain("add");
    expect(since(count)).toContain("write-tree");
    expect(await changed(checkpoints)).toEqual(["a.txt", "new/deep/b.txt"]);
  });

  test("a name that is not UTF-8 in a folder made or moved away since is in the next checkpoint", async () => {
    const { root, checkpoints } = place();
    const odd = (dir: string) =>
      Buffer.concat([Buffer.from(`${root}/${dir}/x`), Buffer.from([0xff])]);
    mkdirSync(join(root, "old"));
    writeFileSync(odd("old"), "o\n");
    await checkpoints.before("t0");
    mkdirSync(join(root, "new"));
    writeFileSync(odd("new"), "n\n");
    // Moved away whole: the watch reports the folder, not the name inside it.
    renameSync(join(root, "old"), join(root, "..", "moved-away"));
    await checkpoints.after("t0");
    const plan = await checkpoints.undoPlan();
    expect(plan.type === "plan" ? plan.plan.roots[0]?.paths : plan.reason).toEqual([
      '"new/x\\xff"',
      '"old/x\\xff"',
    ]);
  });

  test("a rewrite in place that keeps the size and the mtime is still caught", async () => {
    const { root, checkpoints } = place();
    const file = join(root, "same.txt");
    writeFileSync(file, "aaaa\n");
    await checkpoints.before("t0");
    const { atime, mtime } = statSync(file);
    writeFileSync(file, "bbbb\n");
    utimesSync(file, atime, mtime);
    await checkpoints.after("t0");
    expect(await changed(checkpoints)).toEqual(["same.txt"]);
    expect(await checkpoints.diff()).toContain("+bbbb");
  });

  test("an ignored file that changes is never stored, and a moved-away folder's files go", async () => {
    const { root, checkpoints } = place();
    writeFileSync(join(root, ".gitignore"), "*.log\nbuild/\n");
    mkdirSync(join(root, "dir"));
    writeFileSync(join(root, "dir", "kept.txt"), "k\n");
    await checkpoints.before("t0");
    writeFileSync(join(root, "debug.log"), "secret\n");
    mkdirSync(join(root, "build"));
    writeFileSync(join(root, "build", "out.js"), "x\n");
    writeFileSync(join(root, "b.txt"), "b\n");
    writeFileSync(join(root, "-n"), "a name git could take for an option\n");
    renameSync(join(root, "dir"), join(root, "..", "elsewhere"));
    await checkpoints.after("t0");
    expect(await changed(checkpoints)).toEqual(["-n", "b.txt", "dir/kept.txt"]);
    expect(await checkpoints.diff()).not.toContain("secret");
  });

  test("a file staged before its folder was ignored is recorded still when it changes", async () => {
    const { root, checkpoints, calls, since } = place();
    mkdirSync(join(root, "build"));
    writeFileSync(join(root, "build", "kept.txt"), "one\n");
    await checkpoints.before("t0");
    writeFileSync(join(root, ".gitignore"), "build/\n");
    await checkpoints.after("t0");
    writeFileSync(join(root, "build", "kept.txt"), "two\n");
    writeFileSync(join(root, "build", "new.txt"), "ignored\n");
    const count = calls().length;
    await checkpoints.before("t1");
    expect(since(count)).not.toContain("add");
    expect(await changed(checkpoints)).toEqual([".gitignore", "build/kept.txt"]);
    expect(await checkpoints.diff()).toContain("+two");
  });

  test("an added directory is watched too, and every watch ends with the session", async () => {
    const { root, checkpoints, calls, since } = place();
    const added = join(root, "..", "added");
    mkdirSync(added);
    writeFileSync(join(added, "c.txt"), "one\n");
    const before = inotifyInstances();
    await checkpoints.before("t0");
    checkpoints.addRoot(added);
    await checkpoints.after("t0");
    expect(inotifyInstances()).toBe(before + 2);
    await checkpoints.before("t1");
    writeFileSync(join(added, "c.txt"), "two\n");
    const count = calls().length;
    await checkpoints.after("t1");
    expect(since(count)).not.toContain("add");
    expect(await checkpoints.diff(1)).toContain("+two");
    checkpoints.close();
    expect(inotifyInstances()).toBe(before);
  });

  test("a repository inside the root makes every checkpoint take the full scan, as git stages it", async () => {
    const { root, checkpoints, calls, since } = place();
    mkdirSync(join(root, "inner"));
    expect(
      Bun.spawnSync([realGit ?? "git", "init", "-q"], { cwd: join(root, "inner") }).exitCode,
    ).toBe(0);
    writeFileSync(join(root, "a.txt"), "one\n");
    await checkpoints.before("t0");
    writeFileSync(join(root, "a.txt"), "two\n");
    const count = calls().length;
    await checkpoints.after("t0");
    expect(since(count)).toContain("add");
    expect(await checkpoints.diff()).toContain("+two");
  });

  test("lost events (the queue overflowed) make the next checkpoint scan everything", async () => {
    const { root, checkpoints, calls, since } = place();
    const file = join(root, "busy.txt");
    writeFileSync(file, "");
    await checkpoints.before("t0");
    overflow(file);
    const count = calls().length;
    await checkpoints.after("t0");
    expect(since(count)).toContain("add");
    expect(await changed(checkpoints)).toEqual(["busy.txt"]);
    // The watch is trusted again after: the next unchanged checkpoint runs no git.
    const again = calls().length;
    await checkpoints.before("t1");
    expect(since(again)).toEqual([]);
  });

  test("the watch itself says so when its queue overflowed", async () => {
    const { root } = place();
    const watch = (await loadTreeWatcher())?.(root);
    if (watch === undefined) throw new Error("no watch of a temp dir");
    try {
      expect(watch.watch("")).toBe(true);
      expect(watch.take()).toEqual({ all: false, paths: new Set() });
      writeFileSync(join(root, "x"), "1");
      expect(watch.take()).toEqual({ all: false, paths: new Set(["x"]) });
      overflow(join(root, "x"));
      expect(watch.take()).toEqual({ all: true });
    } finally {
      watch.close();
    }
  });
});

/** The inotify instances this process holds. */
function inotifyInstances(): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === "anon_inode:inotify";
    } catch {
      return false;
    }
  }).length;
}

/**
 * Queues more events than the kernel keeps: each append is a write and a close, two events the
 * kernel cannot merge with the one before.
 */
function overflow(file: string): void {
  const queued = Number(readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8"));
  for (let i = 0; i <= queued / 2 + 10; i++) appendFileSync(file, "x");
}
