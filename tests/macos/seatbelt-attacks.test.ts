/**
 * The macOS sandbox attacked from inside and checked from outside, one case per way out: each
 * command runs under dsh's real Seatbelt profile through the real runner, and the host then
 * shows the secret was not read, the file not written, the process not left. Runs where
 * Seatbelt works (the macOS CI job sets DSH_TEST_REQUIRE_SANDBOX=1); elsewhere every case is
 * listed as skipped.
 */
import { afterAll, describe, expect } from "bun:test";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { git, initRepo, userRunsGit } from "../exec/git-support.ts";
import {
  baseEnv,
  makeRunner,
  outputWatcher,
  pidsWith,
  run,
  tempDir,
  trackedSleepTokens,
} from "../exec/helpers.ts";
import { DENIED, seatbeltOnly } from "../exec/sandbox-support.ts";
import { GONE_WITHIN_MS, cleanUp, until } from "../hostile/processes.ts";
import { useFileTools } from "../tools/harness.ts";

const macTest = seatbeltOnly("macOS's Seatbelt (sandbox-exec) is the backend under attack");
const token = trackedSleepTokens();
afterAll(cleanUp);

const runner = makeRunner();
const SECRET = `sk-seatbelt-${process.pid}-${Math.floor(Math.random() * 1e9)}`;

/** `perl`'s setsid (macOS has no setsid(1)): the job leaves the command's session and group. */
const setsid = (command: string) => `perl -e 'use POSIX; POSIX::setsid(); exec @ARGV' ${command}`;

/** A home of the test's own, in a folder the sandbox may not write. */
function fakeHome(): { path: string } & Disposable {
  return tempDir("dsh-home-", "/var/tmp");
}

describe("secrets the README says are hidden", () => {
  macTest("the keychain: security and git's credential helper find nothing", async () => {
    using dir = tempDir();
    using keys = fakeHome();
    const keychain = join(keys.path, "dsh-test.keychain-db");
    const service = `dsh-test-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
    const host = `${service}.example`;
    const security = (...args: string[]) => Bun.spawnSync(["security", ...args]).exitCode;
    expect(security("create-keychain", "-p", "dsh", keychain)).toBe(0);
    expect(security("unlock-keychain", "-p", "dsh", keychain)).toBe(0);
    expect(
      security("add-generic-password", "-a", "dsh", "-s", service, "-w", SECRET, keychain),
    ).toBe(0);
    const credential = `protocol=https\nhost=${host}\nusername=dsh\npassword=${SECRET}\n\n`;
    const approve = Bun.spawnSync(
      ["git", "-c", "credential.helper=osxkeychain", "credential", "approve"],
      { stdin: new TextEncoder().encode(credential) },
    );
    try {
      expect(approve.exitCode).toBe(0);
      const result = await run(
        runner,
        dir.path,
        [
          `security find-generic-password -a dsh -s ${service} -w ${keychain}; echo "security=$?"`,
          `security find-generic-password -a dsh -s ${service} -w; echo "default=$?"`,
          `printf 'protocol=https\\nhost=${host}\\n\\n' | GIT_TERMINAL_PROMPT=0 git -c credential.helper=osxkeychain credential fill; echo "fill=$?"`,
        ].join("; "),
      );
      expect(result.output).not.toContain(SECRET);
      expect(result.output).not.toMatch(/security=0|default=0/);
      expect(result.output).not.toContain("fill=0");
    } finally {
      security("delete-keychain", keychain);
      Bun.spawnSync(["git", "-c", "credential.helper=osxkeychain", "credential", "reject"], {
        stdin: new TextEncoder().encode(credential),
      });
    }
  });

  macTest("ps -E shows no other process's environment", async () => {
    using dir = tempDir();
    const t = token();
    const holder = Bun.spawn(["sleep", t], { env: { ...baseEnv(), DSH_PLANTED: SECRET } });
    try {
      await until("the holder runs", () => pidsWith(t).length === 1, GONE_WITHIN_MS);
      const script = `ps -Eww -p ${holder.pid}; ps -Eww -p ${process.pid}; ps -axEww | head -c 100000; echo end`;
      const result = await run(runner, dir.path, script);
      expect(result.output).not.toContain(SECRET);
      expect(result.output).not.toContain("DSH_PLANTED");
      expect(result.output).toEndWith("end\n");
    } finally {
      holder.kill("SIGKILL");
    }
  });

  macTest("a store reached through a symlink is hidden where it really lies", async () => {
    using dir = tempDir();
    using home = fakeHome();
    mkdirSync(join(home.path, "dotfiles/aws"), { recursive: true });
    writeFileSync(join(home.path, "dotfiles/aws/credentials"), SECRET);
    symlinkSync(join(home.path, "dotfiles/aws"), join(home.path, ".aws"));
    const own = makeRunner({ home: home.path });
    const script = `cat ~/.aws/credentials ${home.path}/dotfiles/aws/credentials; ls ${home.path}/dotfiles/aws; echo end`;
    for (const sandbox of ["workspace-write", "read-only"] as const) {
      const result = await run(own, dir.path, script, { sandbox });
      expect(result.output).not.toContain(SECRET);
      expect(result.output).not.toContain("credentials\n");
      expect(result.output).toEndWith("end\n");
    }
  });

  macTest("a store spelled in another case is hidden on a volume that folds case", async () => {
    using dir = tempDir();
    using home = fakeHome();
    mkdirSync(join(home.path, ".ssh"));
    writeFileSync(join(home.path, ".ssh/id_ed25519"), SECRET);
    const own = makeRunner({ home: home.path });
    const result = await run(own, dir.path, "cat ~/.SSH/id_ed25519 ~/.Ssh/ID_ED25519; echo end");
    expect(result.output).not.toContain(SECRET);
  });

  macTest("env holds no secret and TMPDIR is the command's own", async () => {
    using dir = tempDir();
    const own = makeRunner({
      env: baseEnv({ OPENAI_API_KEY: SECRET, GITHUB_TOKEN: SECRET, TMPDIR: "/tmp/host" }),
    });
    // The names themselves are checked for every backend in tests/exec/sandbox-net-proc.
    const result = await run(own, dir.path, "env");
    expect(result.output).not.toContain(SECRET);
    expect(result.output).toMatch(/^TMPDIR=\/private\/var\/folders\/.*\/dsh-cmd-\w+$/m);
    expect(result.output).toContain("DSH_SANDBOX=seatbelt\n");
  });
});

describe("git's routes to a command stay the user's", () => {
  macTest("nested repositories and gitlinks: nothing can be written or created", async () => {
    using root = tempDir("dsh-git-", "/var/tmp");
    const ws = join(root.path, "ws");
    const marker = join(root.path, "PWNED");
    initRepo(ws);
    initRepo(join(ws, "vendor/lib"));
    initRepo(join(root.path, "lib-src"));
    git(ws, ["submodule", "add", "-q", join(root.path, "lib-src"), "sub"]);
    git(ws, ["commit", "-qm", "sub"]);
    const pointer = readFileSync(join(ws, "sub/.git"), "utf8");
    const script = [
      `git -C vendor/lib config core.fsmonitor 'touch ${marker}'`,
      `echo '[core] fsmonitor = touch ${marker}' >> vendor/lib/.git/config`,
      "printf 'gitdir: ../evil\\n' > sub/.git",
      `git --git-dir=.git/modules/sub config core.fsmonitor 'touch ${marker}'`,
      "mkdir -p new && git init -q new",
      "mkdir -p deep/er/.git",
      "echo end",
    ].join("; ");
    const result = await run(runner, ws, script);
    expect(result.output).toMatch(DENIED);
    expect(result.output).toEndWith("end\n");
    expect(readFileSync(join(ws, "sub/.git"), "utf8")).toBe(pointer);
    expect([existsSync(join(ws, "new/.git")), existsSync(join(ws, "deep/er/.git"))]).toEqual([
      false,
      false,
    ]);
    expect(userRunsGit(ws, [marker])).toEqual([]);
    git(join(ws, "vendor/lib"), ["status"]);
    git(join(ws, "sub"), ["status"]);
    expect(existsSync(marker)).toBe(false);
  });

  macTest(
    ".GIT, .Git and every case of .git cannot be made where the volume folds case",
    async () => {
      using dir = tempDir();
      const script =
        "mkdir .GIT; mkdir -p a && mkdir a/.Git; touch b.GiT; mkdir c && ln -s .. c/.gIT; mv a b/.GIT 2>/dev/null; echo end";
      const result = await run(runner, dir.path, script);
      expect(result.output).toEndWith("end\n");
      const names = readdirSync(dir.path, { recursive: true }).map(String);
      expect(names.filter((name) => /(^|\/)\.git$/i.test(name))).toEqual([]);
    },
  );

  macTest("chflags uchg cannot be set, so what dsh removes stays removable", async () => {
    using dir = tempDir();
    writeFileSync(join(dir.path, "f"), "x");
    const result = await run(
      runner,
      dir.path,
      "chflags uchg f; chflags hidden f; ls -lO f; echo end",
    );
    expect(result.output).toMatch(/chflags: f: Operation not permitted/);
    expect(result.output).not.toMatch(/uchg|hidden/);
    rmSync(join(dir.path, "f"));
  });

  macTest("renames, link swaps and hard links around protected paths all fail", async () => {
    using root = tempDir("dsh-git-", "/var/tmp");
    const ws = join(root.path, "ws");
    const outside = join(root.path, "outside");
    initRepo(ws);
    mkdirSync(outside);
    writeFileSync(join(outside, "zshrc"), "user\n");
    const config = readFileSync(join(ws, ".git/config"), "utf8");
    const script = [
      "mv .git g2",
      "mv .git/hooks .git/h2",
      "ln -sfn ../evil .git/hooks",
      "ln -sf ../evil .git/config",
      "ln .git/config c && echo x >> c",
      `ln ${outside}/zshrc z && echo evil >> z`,
      "echo end",
    ].join("; ");
    const result = await run(runner, ws, script);
    expect(result.output).toEndWith("end\n");
    expect(readFileSync(join(ws, ".git/config"), "utf8")).toBe(config);
    expect(readFileSync(join(outside, "zshrc"), "utf8")).toBe("user\n");
    expect(lstatSync(join(ws, ".git/hooks")).isDirectory()).toBe(true);
    expect(["g2", ".git/h2", "c", "z"].filter((p) => existsSync(join(ws, p)))).toEqual([]);
  });

  macTest(
    "a project under /tmp keeps its hooks even read-only; /tmp itself is not written",
    async () => {
      const project = realpathSync(mkdtempSync("/tmp/dsh-tmp-project-"));
      try {
        initRepo(project);
        const marker = `/tmp/dsh-marker-${process.pid}`;
        const script = `echo x > .git/hooks/pre-commit; echo x > ${marker}; echo ok > "$TMPDIR/own" && cat "$TMPDIR/own"; echo "$TMPDIR"`;
        for (const sandbox of ["read-only", "workspace-write"] as const) {
          const result = await run(runner, project, script, { sandbox });
          expect(result.output).toMatch(DENIED);
          expect(result.output).toContain("ok\n");
          const own = result.output.trim().split("\n").at(-1) ?? "";
          // The command's temp directory is gone with it.
          expect([existsSync(own), own.startsWith("/private/tmp")]).toEqual([false, false]);
          expect(existsSync(join(project, ".git/hooks/pre-commit"))).toBe(false);
          expect(existsSync(marker)).toBe(false);
        }
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
    },
  );
});

describe("processes end with the command and with dsh", () => {
  macTest("set -m and setsid jobs end with the command, at exit, timeout and cancel", async () => {
    using dir = tempDir();
    const t = token();
    const jobs = `set -m; sleep ${t} & ${setsid(`sleep ${t}`)} & (sleep ${t} &)`;
    const exited = await run(runner, dir.path, `${jobs}; echo started`);
    expect(exited.output).toContain("started\n");
    expect(pidsWith(t)).toEqual([]);
    const timedOut = await run(runner, dir.path, `${jobs}; sleep ${t}`, { timeoutMs: 1_000 });
    expect(timedOut.timedOut).toBe(true);
    expect(pidsWith(t)).toEqual([]);
    const abort = new AbortController();
    const watch = outputWatcher("ready");
    const cancelled = run(runner, dir.path, `${jobs}; echo ready; wait`, {
      signal: abort.signal,
      onOutput: watch.onOutput,
    });
    await watch.seen;
    await until("the jobs run", () => pidsWith(t).length >= 3, GONE_WITHIN_MS);
    abort.abort();
    expect((await cancelled).cancelled).toBe(true);
    expect(pidsWith(t)).toEqual([]);
  });

  macTest(
    "a SIGKILLed dsh takes its command along, jobs that left its group included",
    async () => {
      using dir = tempDir();
      const t = token();
      const command = `sleep ${t} & ${setsid(`sleep ${t}`)} & echo ready; wait`;
      const helper = Bun.spawn(
        ["bun", join(import.meta.dir, "../exec/fixtures/hold-command.ts"), dir.path, command],
        { stdin: "ignore", stdout: "pipe", stderr: "inherit" },
      );
      await helper.stdout.getReader().read();
      await until("both sleepers run", () => pidsWith(t).length === 2, GONE_WITHIN_MS);
      helper.kill("SIGKILL");
      await helper.exited;
      await until("the command is gone", () => pidsWith(t).length === 0, GONE_WITHIN_MS);
      expect(pidsWith(t)).toEqual([]);
    },
  );

  macTest("signals reach nothing outside the command's own sandbox", async () => {
    using dir = tempDir();
    const t = token();
    const neighbour = Bun.spawn(["sleep", t]);
    try {
      await until("the neighbour runs", () => pidsWith(t).length === 1, GONE_WITHIN_MS);
      const script = `kill -TERM ${process.pid}; echo "dsh=$?"; kill -0 $PPID; echo "parent=$?"; kill -9 ${neighbour.pid}; echo "neighbour=$?"; kill -0 1; echo "launchd=$?"`;
      const result = await run(runner, dir.path, script);
      expect(result.output).toMatch(/dsh=1\n/);
      expect(result.output).toMatch(/neighbour=1\n/);
      expect(result.output).toMatch(/launchd=1\n/);
      expect(pidsWith(t)).toEqual([neighbour.pid]);
    } finally {
      neighbour.kill("SIGKILL");
    }
  });
});

describe("nothing leads out of the sandbox", () => {
  macTest("no direct network: DNS, TCP and UDP fail, a host's loopback service too", async () => {
    using dir = tempDir();
    let requests = 0;
    await using server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => {
        requests++;
        return new Response("hello");
      },
    });
    const script = [
      "curl -sS -m 5 https://example.com/ >/dev/null && echo dns-ok",
      "curl -sS -m 5 http://1.1.1.1/ >/dev/null && echo tcp-ok",
      `curl -sS -m 5 http://127.0.0.1:${server.port}/ && echo local-ok`,
      "(echo x > /dev/udp/1.1.1.1/53) && echo udp-ok",
      "echo end",
    ].join("; ");
    const result = await run(runner, dir.path, script);
    expect(result.output).not.toMatch(/dns-ok|tcp-ok|local-ok|udp-ok|hello/);
    expect(result.output).toEndWith("end\n");
    expect(requests).toBe(0);
  });

  macTest("launchctl, open, osascript and pbpaste do nothing outside", async () => {
    using dir = tempDir();
    using out = fakeHome();
    const marker = join(out.path, "PWNED");
    const label = `dsh.test.${process.pid}.${Math.floor(Math.random() * 1e6)}`;
    Bun.spawnSync(["pbcopy"], { stdin: new TextEncoder().encode(SECRET) });
    const script = [
      `launchctl submit -l ${label} -- /usr/bin/touch ${marker}`,
      `open -g -a Terminal ${dir.path}`,
      `osascript -e 'do shell script "touch ${marker}"'`,
      `osascript -e 'tell application "System Events" to do shell script "touch ${marker}"'`,
      "pbpaste",
      "echo end",
    ].join("; ");
    try {
      const result = await run(runner, dir.path, script, { timeoutMs: 60_000 });
      expect(result.output).not.toContain(SECRET);
      expect(result.output).toEndWith("end\n");
      expect(Bun.spawnSync(["launchctl", "list", label]).exitCode).not.toBe(0);
      expect(existsSync(marker)).toBe(false);
    } finally {
      Bun.spawnSync(["launchctl", "remove", label]);
      Bun.spawnSync(["pbcopy"], { stdin: new TextEncoder().encode("") });
    }
  });
});

describe("tools work inside", () => {
  macTest("os.cpus(), os.freemem() and npm work; processes are bounded by ulimit -u", async () => {
    using dir = tempDir();
    const script = [
      `bun -e 'const os = require("os"); console.log(os.cpus().length > 0, os.freemem() > 0)'`,
      "npm --version >/dev/null && echo npm-ok",
      "ulimit -S -u",
      "ulimit -H -u",
    ].join("; ");
    const result = await run(
      makeRunner({ commandLimits: { processes: 1500, memoryBytes: 1 << 30 } }),
      dir.path,
      script,
    );
    const [cpus, npm, soft, hard] = result.output.trim().split("\n");
    expect([cpus, npm]).toEqual(["true true", "npm-ok"]);
    expect([Number(soft) <= 1500, soft === hard]).toEqual([true, true]);
  });
});

describe("the file tools on a volume that folds case", () => {
  const fx = useFileTools();

  macTest("refuse a store and git's files under any case", async () => {
    mkdirSync(join(fx.box.home, ".ssh"));
    writeFileSync(join(fx.box.home, ".ssh/id_ed25519"), SECRET);
    mkdirSync(join(fx.box.root, ".git"));
    const reads = await Promise.all(
      [".SSH/id_ed25519", ".Ssh/ID_ED25519", ".AWS/credentials"].map((name) =>
        fx.run("read_file", { path: join(fx.box.home, name) }),
      ),
    );
    for (const { result } of reads) {
      expect(result.isError).toBe(true);
      expect(result.output).not.toContain(SECRET);
    }
    const write = await fx.run("write_file", { path: ".GIT/config", content: "[core]\n" });
    expect(write.result.isError).toBe(true);
    expect(existsSync(join(fx.box.root, ".git/config"))).toBe(false);
  });
});
