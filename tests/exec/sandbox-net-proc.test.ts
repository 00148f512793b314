/**
 * sandbox.md §4, network, process and environment cases, as real commands under the real
 * sandbox. Where a "fails" could pass for the wrong reason, the same command is also run
 * unsandboxed to show it would have worked.
 */
import { describe, expect } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  baseEnv,
  makeRunner,
  outputWatcher,
  pidsWith,
  run,
  sleepScript,
  trackedSleepTokens,
  tempDir,
} from "./helpers.ts";
import { bwrapOnly, sandboxStatus, sandboxTest, underSeatbelt } from "./sandbox-support.ts";

/** Cases of bubblewrap's own: its namespaces, /proc, seccomp, util-linux's setsid. */
const bwrapTest = bwrapOnly(
  "bubblewrap's namespaces, /proc and seccomp, and setsid(1); the macOS counterparts are in tests/macos",
);

const token = trackedSleepTokens();

const runner = makeRunner();
const python = (code: string) => `python3 -c '${code}' 2>&1 | tail -n 1`;

describe("network is off", () => {
  sandboxTest("TCP to a public address, DNS and HTTP fail (case 12)", async () => {
    using dir = tempDir();
    const script = [
      "(exec 3<>/dev/tcp/1.1.1.1/80) && echo tcp-connected",
      "getent hosts example.com || echo dns-failed",
      "command -v curl >/dev/null && { curl -sS -m 3 http://1.1.1.1/ >/dev/null || echo curl-failed; } || echo curl-failed",
    ].join("; ");
    const result = await run(runner, dir.path, script);
    expect(result.output).toMatch(/Network is unreachable|Operation not permitted/);
    expect(result.output).not.toContain("tcp-connected");
    expect(result.output).toContain("dns-failed\n");
    expect(result.output).toEndWith("curl-failed\n");
  });

  bwrapTest("UDP, raw ICMP, ping sockets and IPv6 fail (case 13)", async () => {
    using dir = tempDir();
    const script = [
      "(echo x > /dev/udp/1.1.1.1/53) && echo udp-sent",
      python("import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)"),
      python(
        "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)",
      ),
      python('import socket; socket.create_connection(("2606:4700:4700::1111", 80), timeout=3)'),
    ].join("; ");
    const result = await run(runner, dir.path, script);
    expect(result.output).not.toContain("udp-sent");
    const lines = result.output.trim().split("\n").slice(-3);
    expect(lines).toEqual([
      "PermissionError: [Errno 1] Operation not permitted",
      "PermissionError: [Errno 13] Permission denied",
      "OSError: [Errno 101] Network is unreachable",
    ]);
  });

  sandboxTest("a service on the host's loopback cannot be reached (case 14)", async () => {
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
    const script = `exec 3<>/dev/tcp/127.0.0.1/${server.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && head -n 1 <&3`;
    const outside = await run(runner, dir.path, script, { sandbox: "danger-full-access" });
    expect(outside.output).toStartWith("HTTP/1.1 200");
    const inside = await run(runner, dir.path, script);
    // Another network namespace's loopback has nothing there; Seatbelt refuses the connect.
    expect(inside.output).toMatch(underSeatbelt ? /Operation not permitted/ : /Connection refused/);
    expect(requests).toBe(1);
  });

  sandboxTest(
    "a Unix socket under the workspace stays reachable; SSH_AUTH_SOCK is gone (case 15)",
    async () => {
      using dir = tempDir();
      const socket = join(dir.path, "sock");
      await using server = Bun.serve({ unix: socket, fetch: () => new Response("over unix") });
      const own = makeRunner({ env: baseEnv({ SSH_AUTH_SOCK: socket }) });
      const connect =
        'import socket; s = socket.socket(socket.AF_UNIX); s.connect("sock"); ' +
        's.sendall(b"GET / HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n"); print(s.recv(200).split(b"\\r\\n")[0].decode())';
      const result = await run(
        own,
        dir.path,
        `echo "agent=\${SSH_AUTH_SOCK-unset}"; ${python(connect)}`,
      );
      // Documented: filesystem sockets inside the writable workspace are reachable under bwrap;
      // Seatbelt refuses every Unix socket.
      expect(result.output).toBe(
        underSeatbelt
          ? "agent=unset\nPermissionError: [Errno 1] Operation not permitted\n"
          : "agent=unset\nHTTP/1.1 200 OK\n",
      );
      expect(server.url.protocol).toBe("unix:");
    },
  );
});

describe("processes", () => {
  bwrapTest("dsh's own pid is invisible and cannot be signalled (case 17)", async () => {
    using dir = tempDir();
    const pid = process.pid;
    const script = `test -e /proc/${pid} && echo visible; kill -9 ${pid}; echo kill=$?; echo pid1=$(cat /proc/1/comm)`;
    const result = await run(runner, dir.path, script);
    expect(result.output).not.toContain("visible");
    expect(result.output).toContain("kill=1\n");
    expect(result.output).toEndWith("pid1=bwrap\n");
  });

  bwrapTest(
    "cancel leaves no process behind, setsid and double forks included (case 22)",
    async () => {
      using dir = tempDir();
      const t = token();
      const abort = new AbortController();
      const watch = outputWatcher("ready");
      const sh = sleepScript(t);
      const script = `${sh.setup}; (sleep $T &); setsid sleep $T & nohup sleep $T >/dev/null 2>&1 & ${sh.ready(3)}; echo ready; wait`;
      const done = run(runner, dir.path, script, {
        signal: abort.signal,
        onOutput: watch.onOutput,
      });
      await watch.seen;
      expect(pidsWith(t).length).toBeGreaterThanOrEqual(3);
      abort.abort();
      expect(await done).toMatchObject({ cancelled: true });
      expect(pidsWith(t)).toEqual([]);
    },
  );

  bwrapTest(
    "a timeout and a normal exit leave no process behind either (cases 21, 22)",
    async () => {
      using dir = tempDir();
      const t = token();
      const timedOut = await run(runner, dir.path, `setsid sleep ${t} & sleep ${t}`, {
        timeoutMs: 1000,
      });
      expect(timedOut).toMatchObject({ timedOut: true });
      expect(timedOut.durationMs).toBeLessThan(3000);
      const exited = await run(runner, dir.path, `setsid sleep ${t} & echo started`);
      expect(exited).toMatchObject({ exitCode: 0, output: "started\n" });
      expect(pidsWith(t)).toEqual([]);
    },
  );

  sandboxTest("bwrap-looking text in the command is only shell text (case 27)", async () => {
    using dir = tempDir();
    const target = join(dir.path, "made-by-bwrap");
    const result = await run(
      runner,
      dir.path,
      `--bind / ${target} -- true; echo "rc=$?" '$(id)' "a\nb"`,
    );
    expect(result.output).toEndWith("rc=127 $(id) a\nb\n");
    expect(existsSync(target)).toBe(false);
  });
});

describe("system call filter", () => {
  const probe = [
    "python3 - <<'PY'",
    "import ctypes, os, platform",
    "libc = ctypes.CDLL(None, use_errno=True)",
    'x64 = platform.machine() == "x86_64"',
    "calls = {",
    '  "ptrace": (101 if x64 else 117, 0, 0, 0, 0),',
    '  "keyctl": (250 if x64 else 219, 0, -3, 0),',
    '  "io_uring_setup": (425, 1, ctypes.create_string_buffer(120)),',
    '  "unshare": (272 if x64 else 97, 0x20000),',
    "}",
    "for name, args in calls.items():",
    "    r = libc.syscall(*args)",
    '    print(name, os.strerror(ctypes.get_errno()) if r < 0 else "ok")',
    "PY",
    "grep '^Seccomp:' /proc/self/status",
  ].join("\n");

  bwrapTest(
    "ptrace, keyrings, io_uring and unshare get EPERM (sandbox.md §3.2 item 8)",
    async () => {
      using dir = tempDir();
      const inside = await run(runner, dir.path, probe);
      expect(inside.output).toBe(
        [
          "ptrace Operation not permitted",
          "keyctl Operation not permitted",
          "io_uring_setup Operation not permitted",
          "unshare Operation not permitted",
          "Seccomp:\t2",
          "",
        ].join("\n"),
      );
      const outside = await run(runner, dir.path, probe, { sandbox: "danger-full-access" });
      expect(outside.output).toStartWith("ptrace ok\n");
    },
  );

  // Encrypting a directory, or adding and removing its key, changes what its names read as
  // with no change of names: a command could hide a `.git` from the check after it.
  const fscrypt = [
    "python3 - <<'PY'",
    "import fcntl, os",
    "fd = os.open('.', os.O_RDONLY)",
    "for name, request, size in [('set_policy', 0x800c6613, 12), ('add_key', 0xc0506617, 80),",
    "        ('remove_key', 0xc0406618, 64), ('remove_key_all_users', 0xc0406619, 64)]:",
    "    try:",
    "        fcntl.ioctl(fd, request, bytearray(size))",
    "        print(name, 'ok')",
    "    except OSError as error:",
    "        print(name, os.strerror(error.errno))",
    "PY",
  ].join("\n");

  bwrapTest("fscrypt's policy and key ioctls get EPERM", async () => {
    using dir = tempDir();
    const inside = await run(runner, dir.path, fscrypt);
    expect(inside.output).toBe(
      [
        "set_policy Operation not permitted",
        "add_key Operation not permitted",
        "remove_key Operation not permitted",
        "remove_key_all_users Operation not permitted",
        "",
      ].join("\n"),
    );
    const outside = await run(runner, dir.path, fscrypt, { sandbox: "danger-full-access" });
    expect(outside.output).toStartWith("set_policy ");
    expect(outside.output).not.toStartWith("set_policy Operation not permitted");
  });
});

describe("environment", () => {
  sandboxTest("planted secrets never reach the sandboxed command (cases 19, 20)", async () => {
    using dir = tempDir();
    const planted = {
      OPENAI_API_KEY: "planted-1",
      AWS_SECRET_ACCESS_KEY: "planted-2",
      GITHUB_TOKEN: "planted-3",
      my_db_password: "planted-4",
      DATABASE_URL: "postgres://u:planted-5@h/db",
      SSH_AUTH_SOCK: "/tmp/planted-6",
      Api_Key: "planted-7",
      DSH_API_KEY: "planted-8",
      DEEPSEEK_API_KEY: "planted-9",
    };
    const own = makeRunner({ env: baseEnv(planted), home: "/home/someone" });
    const result = await run(own, dir.path, "env");
    expect(result.output).not.toMatch(
      /planted|API_KEY|SECRET|TOKEN|password|DATABASE_URL|SSH_AUTH_SOCK/i,
    );
    const names = result.output
      .trim()
      .split("\n")
      .map((line) => line.split("=")[0])
      .sort();
    // Seatbelt shows stores as unreadable, not empty: npm is pointed at no user config.
    const npm = underSeatbelt ? ["npm_config_userconfig"] : [];
    expect(names).toEqual(
      [
        "DSH_SANDBOX",
        "GIT_PAGER",
        "HOME",
        "LANG",
        "PAGER",
        "PATH",
        "PWD",
        "SHLVL",
        "TERM",
        "TMPDIR",
        "_",
        ...npm,
      ].sort(),
    );
    expect(result.output).toContain(`DSH_SANDBOX=${sandboxStatus.backend}\n`);
  });
});
