/**
 * Host Unix sockets lead out of the sandbox (a session bus runs `systemd-run --user`, the
 * Docker socket is root): the runtime directories and the usual service sockets are hidden.
 * Each case starts a real listener on the host and checks it was never reached.
 */
import { describe, expect } from "bun:test";
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, makeRunner, run, tempDir } from "./helpers.ts";
import { sandboxTest } from "./sandbox-support.ts";

/** Prints `connected` or the error's name for each socket path given. */
const connect = (...paths: string[]) =>
  `python3 -c 'import socket,sys
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(p); print("connected")
    except OSError as e:
        print(type(e).__name__)' ${paths.join(" ")}`;

/** A host listener at `path` counting the connections it accepted. */
function listen(path: string): { accepted(): number } & Disposable {
  let accepted = 0;
  const listener = Bun.listen({
    unix: path,
    socket: {
      open(socket) {
        accepted++;
        socket.end();
      },
      data() {},
    },
  });
  return { accepted: () => accepted, [Symbol.dispose]: () => listener.stop(true) };
}

describe("host sockets (case 15)", () => {
  for (const sandbox of ["workspace-write", "read-only"] as const) {
    sandboxTest(
      `a socket in the parent's XDG_RUNTIME_DIR cannot be reached (${sandbox})`,
      async () => {
        using dir = tempDir();
        // Not under /tmp, which the sandbox replaces anyway: the runtime-dir mask must hide it.
        using runtime = tempDir("dsh-runtime-", "/var/tmp");
        const socket = join(runtime.path, "bus");
        using server = listen(socket);
        const runner = makeRunner({ env: baseEnv({ XDG_RUNTIME_DIR: runtime.path }) });
        const outside = await run(runner, dir.path, connect(socket), {
          sandbox: "danger-full-access",
        });
        expect(outside.output).toBe("connected\n");
        const inside = await run(runner, dir.path, `${connect(socket)}; ls -A ${runtime.path}`, {
          sandbox,
        });
        expect(inside.output).toBe("FileNotFoundError\n");
        expect(server.accepted()).toBe(1);
      },
    );
  }

  sandboxTest("a workspace inside the runtime directory stays writable", async () => {
    using runtime = tempDir("dsh-runtime-", "/var/tmp");
    const workspace = join(runtime.path, "project");
    mkdirSync(workspace);
    const socket = join(runtime.path, "bus");
    using server = listen(socket);
    const runner = makeRunner({ env: baseEnv({ XDG_RUNTIME_DIR: runtime.path }) });
    const result = await run(runner, workspace, `echo x > a && cat a; ${connect(socket)}`);
    expect(result.output).toBe("x\nFileNotFoundError\n");
    expect(readFileSync(join(workspace, "a"), "utf8")).toBe("x\n");
    expect(server.accepted()).toBe(0);
  });

  const runUser = "/run/user";
  const canUseRunUser = existsSync(runUser) && writable(runUser);
  if (!canUseRunUser) {
    console.warn(`SKIPPING the ${runUser} cases: it is missing or not writable by this user`);
  }
  const runUserTest = canUseRunUser ? sandboxTest : sandboxTest.skip;

  runUserTest("every user's runtime directory under /run/user is hidden", async () => {
    using dir = tempDir();
    using runtime = tempDir("dsh-test-", runUser);
    const socket = join(runtime.path, "bus");
    using server = listen(socket);
    // The parent's own XDG_RUNTIME_DIR is elsewhere: /run/user is hidden regardless.
    const runner = makeRunner();
    const result = await run(runner, dir.path, connect(socket));
    expect(result.output).toBe("FileNotFoundError\n");
    expect(server.accepted()).toBe(0);
  });

  runUserTest("a workspace under /run/user stays writable", async () => {
    using runtime = tempDir("dsh-test-", runUser);
    const runner = makeRunner({ env: baseEnv({ XDG_RUNTIME_DIR: runtime.path }) });
    const result = await run(runner, runtime.path, "echo x > a && cat a");
    expect(result.output).toBe("x\n");
    expect(readFileSync(join(runtime.path, "a"), "utf8")).toBe("x\n");
  });
});

describe("host service sockets", () => {
  // Real service paths: only used when free (no Docker here) or as a fresh name in a directory.
  const dockerSocket = "/run/docker.sock";
  const canFakeDocker = !existsSync(dockerSocket) && writable("/run");
  const canUseDbus = existsSync("/run/dbus") && writable("/run/dbus");
  if (!canFakeDocker || !canUseDbus) {
    console.warn(
      "SKIPPING a host service socket case: /run/docker.sock exists or /run or /run/dbus is not writable by this user",
    );
  }

  (canFakeDocker ? sandboxTest : sandboxTest.skip)(
    "the Docker socket reads as /dev/null",
    async () => {
      using dir = tempDir();
      using server = listen(dockerSocket);
      try {
        const result = await run(makeRunner(), dir.path, connect(dockerSocket));
        expect(result.output).toBe("ConnectionRefusedError\n");
        expect(server.accepted()).toBe(0);
      } finally {
        rmSync(dockerSocket, { force: true });
      }
    },
  );

  (canUseDbus ? sandboxTest : sandboxTest.skip)(
    "a socket in the system bus directory cannot be reached",
    async () => {
      using dir = tempDir();
      const socket = `/run/dbus/dsh-test-${process.pid}-${Math.floor(Math.random() * 1e9)}`;
      using server = listen(socket);
      try {
        const result = await run(makeRunner(), dir.path, connect(socket), {
          sandbox: "read-only",
        });
        expect(result.output).toBe("FileNotFoundError\n");
        expect(server.accepted()).toBe(0);
      } finally {
        rmSync(socket, { force: true });
      }
    },
  );
});

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
