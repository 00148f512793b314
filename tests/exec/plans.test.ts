import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bwrapArgs } from "../../src/exec/bwrap.ts";
import { credentialMasks } from "../../src/exec/guards.ts";
import type { Guard } from "../../src/exec/guards.ts";
import { protectWorkspace } from "../../src/exec/workspace-guards.ts";
import { loadDirCalls } from "../../src/exec/load-dir-calls.ts";
import { explainBwrapFailure } from "../../src/exec/probe.ts";
import { seccompProgram } from "../../src/exec/seccomp.ts";
import { InvalidInputError } from "../../src/errors.ts";
import { tempDir } from "./helpers.ts";

const argv = ["/bin/bash", "-c", "echo hi"];
const walk = { calls: await loadDirCalls() };

describe("the bwrap argument plan", () => {
  test("orders namespaces, capability drop, read-only root, private /tmp and services, workspace, guards, masks", () => {
    const args = bwrapArgs(
      {
        mode: "workspace-write",
        workspace: "/tmp/ws",
        cwd: "/tmp/ws/sub",
        guards: [
          { type: "pin", path: "/tmp/ws/.git" },
          { type: "readonly", path: "/tmp/ws/.git/hooks" },
          { type: "forbid", path: "/tmp/ws/.git/commondir" },
        ],
        masks: [
          { type: "dir", path: "/home/u/.ssh" },
          { type: "file", path: "/home/u/.netrc" },
        ],
        services: [
          { type: "dir", path: "/run/user" },
          { type: "file", path: "/run/docker.sock" },
        ],
        kernel: ["/proc/sys", "/proc/sysrq-trigger"],
        network: false,
      },
      { disableUserns: true, seccompFd: 3 },
      argv,
    );
    expect(args).toEqual([
      "--unshare-user",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--unshare-net",
      "--disable-userns",
      "--die-with-parent",
      "--cap-drop",
      "ALL",
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--ro-bind-try",
      "/proc/sys",
      "/proc/sys",
      "--ro-bind-try",
      "/proc/sysrq-trigger",
      "/proc/sysrq-trigger",
      "--tmpfs",
      "/tmp",
      "--tmpfs",
      "/run/user",
      "--ro-bind",
      "/dev/null",
      "/run/docker.sock",
      "--bind",
      "/tmp/ws",
      "/tmp/ws",
      "--bind",
      "/tmp/ws/.git",
      "/tmp/ws/.git",
      "--ro-bind",
      "/tmp/ws/.git/hooks",
      "/tmp/ws/.git/hooks",
      "--tmpfs",
      "/home/u/.ssh",
      "--remount-ro",
      "/home/u/.ssh",
      "--ro-bind",
      "/dev/null",
      "/home/u/.netrc",
      "--seccomp",
      "3",
      "--chdir",
      "/tmp/ws/sub",
      "--",
      ...argv,
    ]);
  });

  test("read-only binds the workspace read-only and ignores the guards", () => {
    const args = bwrapArgs(
      {
        mode: "read-only",
        workspace: "/w",
        cwd: "/w",
        guards: [{ type: "pin", path: "/w/.git" }],
        masks: [],
        services: [],
        kernel: [],
        network: false,
      },
      { disableUserns: false },
      argv,
    );
    expect(args.slice(args.indexOf("/tmp") + 1)).toEqual([
      "--ro-bind",
      "/w",
      "/w",
      "--chdir",
      "/w",
      "--",
      ...argv,
    ]);
    expect(args).not.toContain("--disable-userns");
  });

  test("a root that holds a runtime directory or socket gets its mask again above the roots", () => {
    const args = bwrapArgs(
      {
        mode: "read-only",
        workspace: "/w",
        cwd: "/w",
        guards: [],
        extraWorkspaces: [{ path: "/run", guards: [] }],
        masks: [],
        services: [
          { type: "dir", path: "/run/user" },
          { type: "file", path: "/run/docker.sock" },
          { type: "dir", path: "/elsewhere/runtime" },
        ],
        kernel: [],
        network: false,
      },
      { disableUserns: false },
      argv,
    );
    expect(args.slice(args.indexOf("/tmp") + 1)).toEqual([
      "--tmpfs",
      "/run/user",
      "--ro-bind",
      "/dev/null",
      "/run/docker.sock",
      "--tmpfs",
      "/elsewhere/runtime",
      "--ro-bind",
      "/w",
      "/w",
      "--ro-bind",
      "/run",
      "/run",
      "--tmpfs",
      "/run/user",
      "--ro-bind",
      "/dev/null",
      "/run/docker.sock",
      "--chdir",
      "/w",
      "--",
      ...argv,
    ]);
  });

  test("refuses a path with a newline instead of passing it to bwrap", () => {
    const plan = {
      mode: "read-only" as const,
      workspace: "/w\n--bind",
      cwd: "/w",
      guards: [],
      masks: [],
      services: [],
      kernel: [],
      network: false,
    };
    expect(() => bwrapArgs(plan, { disableUserns: true }, argv)).toThrow(InvalidInputError);
  });
});

describe("the seccomp program", () => {
  const instructions = (bytes: Uint8Array) => {
    const view = new DataView(bytes.buffer);
    return Array.from({ length: bytes.length / 8 }, (_, i) => [
      view.getUint16(i * 8, true),
      view.getUint8(i * 8 + 2),
      view.getUint8(i * 8 + 3),
      view.getUint32(i * 8 + 4, true),
    ]);
  };

  test("checks the arch, refuses x32, jumps each denied call to EPERM, allows the rest", () => {
    const code = instructions(seccompProgram("x64") ?? new Uint8Array());
    const last = code.length - 1;
    expect(code.slice(0, 4)).toEqual([
      [0x20, 0, 0, 4],
      [0x15, 0, last - 2, 0xc000003e],
      [0x20, 0, 0, 0],
      [0x45, last - 4, 0, 0x40000000],
    ]);
    expect(code[4]).toEqual([0x15, last - 1 - 5, 0, 101]);
    expect(code.slice(-3)).toEqual([
      [0x06, 0, 0, 0x7fff0000],
      [0x06, 0, 0, 0x00050001],
      [0x06, 0, 0, 0x80000000],
    ]);
  });

  test("has a table for arm64 and none for an unknown architecture", () => {
    expect(instructions(seccompProgram("arm64") ?? new Uint8Array())[1]?.[3]).toBe(0xc00000b7);
    expect(seccompProgram("mips")).toBeUndefined();
  });
});

describe("protected paths of a workspace", () => {
  const git = { home: "/nonexistent-home" };
  const guardsOf = (workspace: string, stateDir = "/elsewhere") =>
    protectWorkspace(workspace, { stateDir, git, walk }).guards;
  /** A minimal repository git itself recognises (HEAD and a git directory). */
  const makeRepo = (root: string, config = "") => {
    mkdirSync(join(root, ".git", "objects"), { recursive: true });
    writeFileSync(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(root, ".git", "config"), config);
  };

  test("a fresh directory forbids .dsh and keeps a state dir inside it read-only, pinned", () => {
    using dir = tempDir();
    expect(guardsOf(dir.path, join(dir.path, "state", "dsh"))).toEqual([
      { type: "forbid", path: join(dir.path, ".dsh") },
      { type: "pin", path: join(dir.path, "state") },
      { type: "readonly", path: join(dir.path, "state", "dsh") },
    ]);
    expect(readdirSync(dir.path)).toEqual(["state"]);
  });

  test("a repository pins .git, keeps git's control files read-only, forbids the missing ones", () => {
    using dir = tempDir();
    makeRepo(dir.path);
    const dotGit = join(dir.path, ".git");
    mkdirSync(join(dotGit, "rebase-merge"));
    expect(guardsOf(dir.path)).toEqual([
      { type: "forbid", path: join(dir.path, ".dsh") },
      { type: "pin", path: dotGit },
      { type: "forbid", path: join(dotGit, "commondir") },
      { type: "readonly", path: join(dotGit, "config") },
      { type: "forbid", path: join(dotGit, "config.worktree") },
      { type: "readonly", path: join(dotGit, "hooks") },
      { type: "readonly", path: join(dotGit, "modules") },
      // A rebase, cherry-pick or revert in progress: its todo list waits for the user.
      { type: "forbid", path: join(dotGit, "rebase-apply") },
      { type: "readonly", path: join(dotGit, "rebase-merge") },
      { type: "forbid", path: join(dotGit, "sequencer") },
      { type: "readonly", path: join(dotGit, "worktrees") },
    ]);
    // git's own directories are made (empty, for good) so that they can be read-only.
    expect(
      ["hooks", "modules", "worktrees"].map((name) => readdirSync(join(dotGit, name))),
    ).toEqual([[], [], []]);
  });

  test("husky's core.hooksPath protects the whole .husky, pinned up to the workspace", () => {
    using dir = tempDir();
    makeRepo(dir.path, '[core]\n\thooksPath = "tools/.husky/_"\n');
    mkdirSync(join(dir.path, "tools", ".husky", "_"), { recursive: true });
    const guards = guardsOf(dir.path).filter((guard) => guard.path.includes("tools"));
    expect(guards).toEqual([
      { type: "pin", path: join(dir.path, "tools") },
      { type: "readonly", path: join(dir.path, "tools", ".husky") },
      { type: "readonly", path: join(dir.path, "tools", ".husky", "_") },
    ]);
  });

  test("a session in a subfolder finds the repository above it and its hooks and includes", () => {
    using dir = tempDir();
    const config = "[core]\n\thooksPath = pkg/hooks\n[include]\n\tpath = ../pkg/shared.gitconfig\n";
    makeRepo(dir.path, config);
    const pkg = join(dir.path, "pkg");
    mkdirSync(join(pkg, "hooks"), { recursive: true });
    writeFileSync(
      join(pkg, "shared.gitconfig"),
      '[includeIf "gitdir:/x/"]\n\tpath = more.gitconfig\n',
    );
    expect(guardsOf(pkg)).toEqual([
      { type: "forbid", path: join(pkg, ".dsh") },
      { type: "readonly", path: join(pkg, "hooks") },
      { type: "forbid", path: join(pkg, "more.gitconfig") },
      { type: "readonly", path: join(pkg, "shared.gitconfig") },
    ]);
  });

  test("a nested repository and a submodule's gitdir file are guarded like the top one", () => {
    using dir = tempDir();
    makeRepo(dir.path);
    makeRepo(join(dir.path, "vendor", "x"));
    mkdirSync(join(dir.path, ".git", "modules", "lib"), { recursive: true });
    writeFileSync(join(dir.path, ".git", "modules", "lib", "HEAD"), "ref: refs/heads/main\n");
    mkdirSync(join(dir.path, "lib"));
    writeFileSync(join(dir.path, "lib", ".git"), "gitdir: ../.git/modules/lib\n");
    const { guards, gitEntries } = protectWorkspace(dir.path, {
      stateDir: "/elsewhere",
      git,
      walk,
    });
    expect(gitEntries).toEqual([
      join(dir.path, ".git"),
      join(dir.path, "lib", ".git"),
      join(dir.path, "vendor", "x", ".git"),
    ]);
    const wanted: Guard[] = [
      { type: "pin", path: join(dir.path, "lib") },
      { type: "readonly", path: join(dir.path, "lib", ".git") },
      { type: "pin", path: join(dir.path, "vendor") },
      { type: "pin", path: join(dir.path, "vendor", "x") },
      { type: "readonly", path: join(dir.path, "vendor", "x", ".git") },
      { type: "readonly", path: join(dir.path, ".git", "modules") },
    ];
    for (const guard of wanted) expect(guards).toContainEqual(guard);
    // The submodule's git directory lies under the read-only .git/modules: nothing reopens it.
    const modules = join(dir.path, ".git", "modules");
    expect(
      guards.filter((guard) => guard.type === "pin" && guard.path.startsWith(modules)),
    ).toEqual([]);
  });

  test("hooks kept in the worktree root itself are guarded one by one, not the root", () => {
    using dir = tempDir();
    makeRepo(dir.path, "[core]\n\thooksPath = .\n");
    writeFileSync(join(dir.path, "pre-commit"), "true\n");
    const guards = guardsOf(dir.path);
    expect(guards).toContainEqual({ type: "readonly", path: join(dir.path, "pre-commit") });
    expect(guards).toContainEqual({ type: "forbid", path: join(dir.path, "post-checkout") });
    expect(guards.some((guard) => guard.path === dir.path)).toBe(false);
  });

  test("credential masks cover the stores that exist, following symlinks", () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, ".ssh"));
    mkdirSync(join(dir.path, "real-aws"));
    symlinkSync(join(dir.path, "real-aws"), join(dir.path, ".aws"));
    writeFileSync(join(dir.path, ".netrc"), "machine x");
    expect(credentialMasks({ home: dir.path })).toEqual([
      { type: "dir", path: join(dir.path, ".ssh") },
      { type: "dir", path: join(dir.path, ".aws") },
      { type: "file", path: join(dir.path, ".netrc") },
    ]);
  });
});

describe("explaining a failed bwrap probe", () => {
  const explain = (stderr: string) =>
    explainBwrapFailure({ code: 1, stdout: "", stderr, timedOut: false }).reason;

  test("names the cause an administrator can fix", () => {
    expect(
      explain(
        "bwrap: No permissions to create new namespace, likely because the kernel does not allow",
      ),
    ).toStartWith("user namespaces are disabled");
    expect(
      explain(
        "bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)",
      ),
    ).toStartWith("user namespaces are disabled");
    expect(explain("bwrap: setting up uid map: Permission denied")).toStartWith("AppArmor forbids");
    expect(explain("bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted")).toStartWith(
      "AppArmor forbids",
    );
    expect(explain("bwrap: Failed to make / slave: Permission denied")).toStartWith(
      "the container or host forbids",
    );
    expect(explain("bwrap: something new")).toBe("bwrap failed: bwrap: something new");
  });
});
