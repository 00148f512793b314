/**
 * Host Unix sockets lead out of the sandbox (a session bus runs `systemd-run --user`, the
 * Docker socket is root): the runtime directories and the usual service sockets are hidden.
 * Each case starts a real listener on the host and checks it was never reached.
 */
import { describe, expect } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { baseEnv, makeRunner, run, tempDir } from "./helpers.ts";
import { sandboxTest, underSeatbelt } from "./sandbox-support.ts";

/**
 * What connecting to a hidden host socket prints: bwrap's masks make it missing (or
 * `/dev/null`); Seatbelt refuses every Unix socket connection, whatever the path.
 */
const refused = (underBwrap: string) => (underSeatbelt ? "PermissionError" : underBwrap);

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
        // Seatbelt lets the directory be listed; nothing in it can be reached.
        expect(inside.output).toBe(
          underSeatbelt ? "PermissionError\nbus\n" : "FileNotFoundError\n",
        );
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
    expect(result.output).toBe(`x\n${refused("FileNotFoundError")}\n`);
    expect(readFileSync(join(workspace, "a"), "utf8")).toBe("x\n");
    expect(server.accepted()).toBe(0);
  });

  // A private service root under /var/tmp stands in for /run, so /run/user is never touched.
  sandboxTest("every user's runtime directory under /run/user is hidden", async () => {
    using dir = tempDir();
    using root = tempDir("dsh-run-", "/var/tmp");
    const runtime = join(root.path, "user", "1000");
    mkdirSync(runtime, { recursive: true });
    const socket = join(runtime, "bus");
    using server = listen(socket);
    // The parent's own XDG_RUNTIME_DIR is elsewhere: /run/user is hidden regardless.
    const runner = makeRunner({ serviceRoots: [root.path] });
    const result = await run(runner, dir.path, connect(socket));
    expect(result.output).toBe(`${refused("FileNotFoundError")}\n`);
    expect(server.accepted()).toBe(0);
  });

  sandboxTest("a workspace under /run/user stays writable", async () => {
    using root = tempDir("dsh-run-", "/var/tmp");
    const runtime = join(root.path, "user", "1000");
    mkdirSync(runtime, { recursive: true });
    const runner = makeRunner({
      env: baseEnv({ XDG_RUNTIME_DIR: runtime }),
      serviceRoots: [root.path],
    });
    const result = await run(runner, runtime, "echo x > a && cat a");
    expect(result.output).toBe("x\n");
    expect(readFileSync(join(runtime, "a"), "utf8")).toBe("x\n");
  });
});

describe("host service sockets", () => {
  // A private service root under /var/tmp (visible in the sandbox, unlike /tmp) stands in for
  // /run: the masking is the same, and the host's /run is never touched.
  const serviceRoot = () => tempDir("dsh-run-", "/var/tmp");

  sandboxTest("the Docker socket reads as /dev/null", async () => {
    using dir = tempDir();
    using root = serviceRoot();
    const socket = join(root.path, "docker.sock");
    using server = listen(socket);
    const runner = makeRunner({ serviceRoots: [root.path] });
    const result = await run(runner, dir.path, connect(socket));
    expect(result.output).toBe(`${refused("ConnectionRefusedError")}\n`);
    expect(server.accepted()).toBe(0);
  });

  sandboxTest("a socket in the system bus directory cannot be reached", async () => {
    using dir = tempDir();
    using root = serviceRoot();
    mkdirSync(join(root.path, "dbus"));
    const socket = join(root.path, "dbus", "system_bus_socket");
    using server = listen(socket);
    const runner = makeRunner({ serviceRoots: [root.path] });
    const result = await run(runner, dir.path, connect(socket), { sandbox: "read-only" });
    expect(result.output).toBe(`${refused("FileNotFoundError")}\n`);
    expect(server.accepted()).toBe(0);
  });
});
