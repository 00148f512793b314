/**
 * sandbox.md §4, filesystem cases, as real commands under the real sandbox. Every "fails"
 * also checks on the host that the side effect did not happen.
 */
import { afterAll, describe, expect } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { InvalidInputError } from "../../src/errors.ts";
import { silentLogger } from "../../src/log.ts";
import { initRepo } from "./git-support.ts";
import { makeRunner, outputWatcher, run, tempDir } from "./helpers.ts";
import {
  DENIED,
  bwrapOnly,
  denials,
  hostMarkers,
  sandboxTest,
  underSeatbelt,
} from "./sandbox-support.ts";

/** Cases whose sandbox is bubblewrap's own doing: a mount namespace, capabilities, /proc. */
const bwrapTest = bwrapOnly(
  "bubblewrap's namespaces, mounts and /proc; the macOS counterparts are in tests/macos",
);

const markers = hostMarkers();
afterAll(() => {
  expect(markers.leftovers()).toEqual([]);
});

const home = homedir();
const runner = makeRunner({ home });
const read = (path: string) => readFileSync(path, "utf8");

describe("workspace-write", () => {
  sandboxTest("writes inside the workspace succeed (case 1)", async () => {
    using dir = tempDir();
    const result = await run(
      runner,
      dir.path,
      "echo x > a && mkdir -p sub/deep && echo y > sub/deep/b",
    );
    expect(result.exitCode).toBe(0);
    expect([read(join(dir.path, "a")), read(join(dir.path, "sub/deep/b"))]).toEqual(["x\n", "y\n"]);
  });

  sandboxTest("writes to /etc and $HOME fail with EROFS or EPERM (case 2)", async () => {
    using dir = tempDir();
    const etc = markers.path("/etc");
    const inHome = markers.path(home);
    const result = await run(runner, dir.path, `echo x > ${etc}; echo x > ${inHome}`);
    expect(result.exitCode).not.toBe(0);
    expect(denials(result.output)).toBe(2);
    expect([existsSync(etc), existsSync(inHome)]).toEqual([false, false]);
  });

  bwrapTest("/tmp is private to the command (case 4)", async () => {
    using dir = tempDir();
    const tmp = markers.path("/tmp");
    const result = await run(runner, dir.path, `echo inside > ${tmp} && cat ${tmp}`);
    expect(result).toMatchObject({ exitCode: 0, output: "inside\n" });
    expect(existsSync(tmp)).toBe(false);
  });

  sandboxTest("a symlink to a host file does not make it writable (case 5)", async () => {
    using dir = tempDir();
    const before = read("/etc/passwd");
    const result = await run(runner, dir.path, "ln -s /etc/passwd l && echo x >> l");
    expect(result.exitCode).not.toBe(0);
    // Root gets EROFS (EPERM on macOS); an ordinary user is stopped earlier, by the file's
    // permissions.
    expect(result.output).toMatch(
      /Read-only file system|Operation not permitted|Permission denied/,
    );
    expect(read("/etc/passwd")).toBe(before);
  });

  sandboxTest("a hard link to a host file cannot be made (case 6)", async () => {
    using dir = tempDir();
    const result = await run(runner, dir.path, "ln /etc/hosts h");
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toMatch(/Invalid cross-device link|Operation not permitted/);
    expect(existsSync(join(dir.path, "h"))).toBe(false);
  });

  bwrapTest(
    "no capabilities: remount, bind mount and umount fail, even as root (case 7)",
    async () => {
      using dir = tempDir();
      const etc = markers.path("/etc");
      const script = [
        "grep CapEff /proc/self/status",
        `mount -o remount,rw / && echo x > ${etc}`,
        "mount --bind /tmp /mnt && echo bound",
        "umount /tmp && echo unmounted",
        "echo done",
      ].join("; ");
      const result = await run(runner, dir.path, script);
      expect(result.output).toStartWith("CapEff:\t0000000000000000\n");
      expect(result.output).not.toMatch(/bound|unmounted/);
      expect(result.output).toEndWith("done\n");
      expect(existsSync(etc)).toBe(false);
    },
  );

  bwrapTest("a nested user namespace cannot gain write access to the host (case 8)", async () => {
    using dir = tempDir();
    const etc = markers.path("/etc");
    const result = await run(
      runner,
      dir.path,
      `unshare -Ur sh -c 'mount -o remount,rw / ; echo x > ${etc}'`,
    );
    expect(result.exitCode).not.toBe(0);
    expect(existsSync(etc)).toBe(false);
  });

  bwrapTest("writes through /proc/1/root and /proc/self/cwd fail (case 9)", async () => {
    using dir = tempDir();
    const a = markers.path("/etc");
    const b = markers.path("/etc");
    const up = "../".repeat(dir.path.split("/").length);
    const result = await run(
      runner,
      dir.path,
      `echo x > /proc/1/root${a}; echo x > /proc/self/cwd/${up}${b.slice(1)}`,
    );
    expect(result.exitCode).not.toBe(0);
    expect([existsSync(a), existsSync(b)]).toEqual([false, false]);
  });
});

describe("protected paths under workspace-write", () => {
  sandboxTest("existing .git/hooks, .git/config and .dsh stay read-only (case 10)", async () => {
    using dir = tempDir();
    initRepo(dir.path);
    mkdirSync(join(dir.path, ".dsh"));
    writeFileSync(join(dir.path, ".dsh/config"), "orig");
    const config = read(join(dir.path, ".git/config"));
    const script =
      "echo x > .git/hooks/pre-commit; echo x > .git/config; echo x > .dsh/config; echo x > .git/description";
    const result = await run(runner, dir.path, script);
    expect(denials(result.output)).toBe(3);
    expect(existsSync(join(dir.path, ".git/hooks/pre-commit"))).toBe(false);
    expect([read(join(dir.path, ".git/config")), read(join(dir.path, ".dsh/config"))]).toEqual([
      config,
      "orig",
    ]);
    expect(read(join(dir.path, ".git/description"))).toBe("x\n");
  });

  // Seatbelt refuses to create them at all (tests/macos).
  bwrapTest(
    "a .git or .dsh a command creates is removed, leaving nothing behind (case 10)",
    async () => {
      using dir = tempDir();
      const script =
        "mkdir -p .git/hooks; echo x > .git/hooks/pre-commit; mkdir -p .dsh; echo x > .dsh/config; ls -A";
      const result = await run(runner, dir.path, script);
      expect(result.output).toStartWith(".dsh\n.git\n");
      expect(result.output).toContain(`[dsh removed ${join(dir.path, ".dsh")}: `);
      expect(result.output).toContain(`[dsh removed ${join(dir.path, ".git")}: `);
      expect(readdirSync(dir.path)).toEqual([]);
    },
  );

  sandboxTest("a repository without hooks gets an empty read-only hooks directory", async () => {
    using dir = tempDir();
    initRepo(dir.path);
    rmSync(join(dir.path, ".git/hooks"), { recursive: true });
    const result = await run(runner, dir.path, "echo x > .git/hooks/post-checkout");
    expect(result.output).toMatch(DENIED);
    expect(readdirSync(join(dir.path, ".git/hooks"))).toEqual([]);
  });

  // Seatbelt refuses the write itself; its case of a path dsh cannot remove is in tests/macos.
  bwrapTest(
    "a .git/commondir dsh cannot remove is reported and refuses every later command",
    async () => {
      using dir = tempDir();
      initRepo(dir.path);
      const dotGit = join(dir.path, ".git");
      const commondir = join(dotGit, "commondir");
      const errors: string[] = [];
      const own = makeRunner({
        logger: { ...silentLogger, error: (message) => errors.push(message) },
      });
      // As an ordinary user `chmod 555 .git` is enough to stop the deletion; root needs more.
      const root = process.getuid?.() === 0;
      const watch = outputWatcher("created");
      const script =
        "mkdir -p evil && echo ../evil > .git/commondir && chmod 555 .git && echo created && until [ -e go ]; do :; done";
      try {
        const first = run(own, dir.path, script, { onOutput: watch.onOutput });
        await watch.seen;
        if (root) Bun.spawnSync(["chattr", "+i", commondir]);
        writeFileSync(join(dir.path, "go"), "");
        const result = await first;
        expect(result.output).toContain(`dsh could not remove ${commondir}`);
        expect(errors.length).toBe(1);
        expect(existsSync(commondir)).toBe(true);
        for (const sandbox of ["workspace-write", "read-only"] as const) {
          const later = run(own, dir.path, "touch ran", { sandbox });
          await expect(later).rejects.toThrow(`${commondir}`);
        }
        expect(existsSync(join(dir.path, "ran"))).toBe(false);
      } finally {
        if (root) Bun.spawnSync(["chattr", "-i", commondir]);
        chmodSync(dotGit, 0o755);
      }
    },
  );

  sandboxTest("protected paths cannot be moved away and replaced (case 11)", async () => {
    using dir = tempDir();
    initRepo(dir.path);
    mkdirSync(join(dir.path, ".dsh"));
    const config = read(join(dir.path, ".git/config"));
    const script = [
      "mv .git g2; rm -rf .git/hooks; mv .git/hooks .git/h2; mv .git/config .git/c2",
      "mkdir -p .git/hooks && echo x > .git/hooks/pre-commit",
      "mv .dsh d2; rm -rf .dsh",
      "echo done",
    ].join("; ");
    const result = await run(runner, dir.path, script);
    expect(result.output).toMatch(
      underSeatbelt ? /Operation not permitted/ : /Device or resource busy/,
    );
    expect(result.output).toEndWith("done\n");
    const host = ["g2", ".git/h2", ".git/c2", ".git/hooks/pre-commit", "d2"].map((p) =>
      existsSync(join(dir.path, p)),
    );
    expect(host).toEqual([false, false, false, false, false]);
    expect(read(join(dir.path, ".git/config"))).toBe(config);
  });

  const linkedCases = [
    { link: ".git", target: "g", dir: true },
    { link: ".git/hooks", target: "../h", dir: true },
    { link: ".git/config", target: "../c", dir: false },
    { link: ".dsh", target: "d", dir: true },
    { link: ".git/modules", target: "../m", dir: true },
    { link: "sub/.git", target: "../g", dir: true },
  ];
  for (const { link, target, dir: isDir } of linkedCases) {
    sandboxTest(`a protected ${link} that is a symlink refuses the command`, async () => {
      using dir = tempDir();
      initRepo(dir.path);
      const linkPath = join(dir.path, link);
      mkdirSync(dirname(linkPath), { recursive: true });
      rmSync(linkPath, { recursive: true, force: true });
      const targetPath = join(dirname(linkPath), target);
      if (isDir) mkdirSync(targetPath);
      else writeFileSync(targetPath, "orig");
      symlinkSync(target, linkPath);
      const replace = `rm -f ${link} && mkdir -p ${link} && echo evil > ${link}/planted`;
      const attempt = run(runner, dir.path, replace);
      await expect(attempt).rejects.toThrow(/is a symlink; dsh cannot protect it/);
      expect(existsSync(join(dir.path, link, "planted"))).toBe(false);
    });
  }

  sandboxTest("submodules' git directories stay read-only", async () => {
    using dir = tempDir();
    initRepo(dir.path);
    mkdirSync(join(dir.path, ".git/modules/sub/hooks"), { recursive: true });
    writeFileSync(join(dir.path, ".git/modules/sub/config"), "orig");
    const script =
      "echo x > .git/modules/sub/config; echo x > .git/modules/sub/hooks/post-checkout; mkdir .git/modules/new; echo end";
    const result = await run(runner, dir.path, script);
    expect(denials(result.output)).toBe(3);
    expect(read(join(dir.path, ".git/modules/sub/config"))).toBe("orig");
    expect([
      existsSync(join(dir.path, ".git/modules/sub/hooks/post-checkout")),
      existsSync(join(dir.path, ".git/modules/new")),
    ]).toEqual([false, false]);
  });

  sandboxTest("dsh's state directory stays read-only when it lies in the workspace", async () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "state"));
    const own = makeRunner({ stateDir: join(dir.path, "state") });
    const result = await run(own, dir.path, "echo x > state/sessions.jsonl");
    expect(result.output).toMatch(DENIED);
    expect(existsSync(join(dir.path, "state/sessions.jsonl"))).toBe(false);
  });
});

describe("dsh's own directories", () => {
  for (const sandbox of ["workspace-write", "read-only"] as const) {
    sandboxTest(`the state directory's transcripts cannot be read (${sandbox})`, async () => {
      using dir = tempDir();
      using state = tempDir("dsh-state-", "/var/tmp");
      mkdirSync(join(state.path, "sessions"));
      writeFileSync(join(state.path, "sessions/other.jsonl"), "PLANTED-TRANSCRIPT");
      const own = makeRunner({ stateDir: state.path });
      const script = `cat ${state.path}/sessions/other.jsonl 2>/dev/null; ls -A ${state.path} 2>/dev/null; echo end`;
      const result = await run(own, dir.path, script, { sandbox });
      // Empty under bwrap; unreadable under Seatbelt.
      expect(result.output).toBe("end\n");
    });
  }

  sandboxTest("a workspace inside the state directory still works", async () => {
    using state = tempDir("dsh-state-", "/var/tmp");
    const workspace = join(state.path, "project");
    mkdirSync(workspace);
    const own = makeRunner({ stateDir: state.path });
    const result = await run(own, workspace, "echo x > a && cat a");
    expect(result.output).toBe("x\n");
  });

  sandboxTest("protected directories in the workspace stay read-only or absent", async () => {
    using dir = tempDir();
    mkdirSync(join(dir.path, "cfg"));
    writeFileSync(join(dir.path, "cfg/config.toml"), "orig");
    const own = makeRunner({
      protectedDirs: [join(dir.path, "cfg"), join(dir.path, "missing/dsh")],
    });
    const script =
      "echo x > cfg/config.toml; echo x > cfg/new; mkdir -p missing/dsh && echo x > missing/dsh/config.toml; echo end";
    const result = await run(own, dir.path, script);
    // bwrap lets the missing one be made and removes it after; Seatbelt refuses the mkdir.
    if (underSeatbelt) expect(denials(result.output)).toBe(3);
    else {
      expect(denials(result.output)).toBe(2);
      expect(result.output).toContain(`end\n\n[dsh removed ${join(dir.path, "missing/dsh")}: `);
    }
    expect(read(join(dir.path, "cfg/config.toml"))).toBe("orig");
    expect([
      existsSync(join(dir.path, "cfg/new")),
      existsSync(join(dir.path, "missing/dsh")),
    ]).toEqual([false, false]);
  });
});

describe("read-only", () => {
  sandboxTest(
    "nothing in the workspace can be written, the command's temp still can (case 3)",
    async () => {
      using dir = tempDir();
      const result = await run(
        runner,
        dir.path,
        'echo x > a; touch "$TMPDIR/scratch" && echo tmp-ok',
        {
          sandbox: "read-only",
        },
      );
      expect(result.output).toMatch(
        /^\S+: (line 1: )?a: (Read-only file system|Operation not permitted)\ntmp-ok\n$/,
      );
      expect(existsSync(join(dir.path, "a"))).toBe(false);
    },
  );
});

describe("credential stores (case 18)", () => {
  for (const sandbox of ["workspace-write", "read-only"] as const) {
    sandboxTest(`~/.ssh, ~/.aws and ~/.netrc read as empty under ${sandbox}`, async () => {
      using dir = tempDir();
      // Not under /tmp, which the sandbox replaces: the masks themselves must hide the files.
      using homeDir = tempDir("dsh-home-", "/var/tmp");
      const fakeHome = homeDir.path;
      mkdirSync(join(fakeHome, ".ssh"), { recursive: true });
      mkdirSync(join(fakeHome, ".aws"));
      writeFileSync(join(fakeHome, ".ssh/id_rsa"), "PLANTED-KEY");
      writeFileSync(join(fakeHome, ".aws/credentials"), "PLANTED-AWS");
      writeFileSync(join(fakeHome, ".netrc"), "PLANTED-NETRC");
      const own = makeRunner({ home: fakeHome });
      const script =
        "cat ~/.ssh/id_rsa ~/.aws/credentials ~/.netrc; ls -A ~/.ssh; echo x > ~/.ssh/authorized_keys; echo end";
      const result = await run(own, dir.path, script, { sandbox });
      expect(result.output).not.toContain("PLANTED");
      expect(result.output).toEndWith("end\n");
      expect(existsSync(join(fakeHome, ".ssh/authorized_keys"))).toBe(false);
    });
  }
});

describe("more credential stores (case 18)", () => {
  sandboxTest(
    "gh, hub, cargo, vault, yarn, maven, terraform and pgpass credentials read as empty",
    async () => {
      using dir = tempDir();
      using homeDir = tempDir("dsh-home-", "/var/tmp");
      const files = [
        ".config/gh/hosts.yml",
        ".config/hub",
        ".cargo/credentials.toml",
        ".cargo/credentials",
        ".vault-token",
        ".yarnrc.yml",
        ".m2/settings.xml",
        ".terraform.d/credentials.tfrc.json",
        ".pgpass",
      ];
      for (const file of files) {
        mkdirSync(dirname(join(homeDir.path, file)), { recursive: true });
        writeFileSync(join(homeDir.path, file), `PLANTED ${file}`);
      }
      const own = makeRunner({ home: homeDir.path });
      const script = `cd ~ && cat ${files.join(" ")} 2>/dev/null; ls -A .config/gh 2>/dev/null; echo end`;
      const result = await run(own, dir.path, script, { sandbox: "read-only" });
      expect(result.output).toBe("end\n");
    },
  );
});

describe("working directory (case 28)", () => {
  sandboxTest("a home reached through a symlink is still refused as a workspace", async () => {
    using base = tempDir("dsh-home-", "/var/tmp");
    const realHome = join(base.path, "real");
    const link = join(base.path, "link");
    mkdirSync(realHome);
    symlinkSync(realHome, link);
    const own = makeRunner({ home: link });
    for (const workspace of [realHome, base.path, "/"]) {
      const attempt = own.run(
        { command: "touch ran", cwd: workspace, workspace, sandbox: "workspace-write" },
        { signal: new AbortController().signal },
      );
      await expect(attempt).rejects.toBeInstanceOf(InvalidInputError);
    }
    expect([existsSync(join(realHome, "ran")), existsSync(join(base.path, "ran"))]).toEqual([
      false,
      false,
    ]);
  });

  // Only bwrap hides directories (its own /tmp); on macOS a cwd outside the workspace is seen.
  bwrapTest(
    "a cwd the sandbox cannot see, or a home-wide workspace, is refused before spawn",
    async () => {
      using dir = tempDir();
      using other = tempDir();
      const outside = runner.run(
        { command: "touch ran", cwd: other.path, workspace: dir.path, sandbox: "workspace-write" },
        { signal: new AbortController().signal },
      );
      await expect(outside).rejects.toThrow(/outside the sandbox's view/);
      const broad = runner.run(
        { command: "touch ran", cwd: home, workspace: home, sandbox: "workspace-write" },
        { signal: new AbortController().signal },
      );
      await expect(broad).rejects.toBeInstanceOf(InvalidInputError);
      expect([existsSync(join(other.path, "ran")), existsSync(join(home, "ran"))]).toEqual([
        false,
        false,
      ]);
    },
  );
});
