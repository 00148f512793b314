/**
 * `dsh __net-bridge SOCKET PORT -- COMMAND...`: run inside a command's sandbox where dsh did not
 * make the namespace itself. It listens on `127.0.0.1:PORT` in the sandbox's network namespace,
 * passes every connection to dsh's proxy over the Unix socket bound in at SOCKET, and runs the
 * command as its child; it ends with the command's exit status (or its signal).
 *
 * In a session's shared namespace a server of an earlier command may hold PORT: the bridge then
 * takes the next free port and points the command's proxy variables there.
 */
import { type Server, createConnection, createServer } from "node:net";

/** Runs the bridge; resolves with the exit code to end with. `env` is the command's. */
export async function runBridge(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const [socket, portText, separator, ...command] = argv;
  const port = Number(portText);
  if (
    socket === undefined ||
    !Number.isInteger(port) ||
    separator !== "--" ||
    command.length === 0
  ) {
    process.stderr.write("usage: dsh __net-bridge SOCKET PORT -- COMMAND...\n");
    return 2;
  }
  const server = createServer((client) => {
    const upstream = createConnection(socket);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end);
    upstream.on("error", end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  let bound: number | undefined;
  let failure: unknown;
  for (let next = port; bound === undefined && next < port + PORT_TRIES; next++) {
    failure = await listenOn(server, next);
    if (failure === undefined) bound = next;
    else if ((failure as { code?: unknown }).code !== "EADDRINUSE") break;
  }
  if (bound === undefined) {
    process.stderr.write(
      `dsh: the network bridge cannot listen on 127.0.0.1:${port}: ${String(failure)}\n`,
    );
    return 125;
  }
  const child = Bun.spawn(command, {
    stdio: ["inherit", "inherit", "inherit"],
    ...(bound === port ? {} : { env: movedProxy(env, port, bound) }),
  });
  const code = await child.exited;
  if (child.signalCode !== null) process.kill(process.pid, child.signalCode);
  return code;
}

/** Ports tried from PORT on when the ones before are taken. */
const PORT_TRIES = 100;

/** Listens on `127.0.0.1:port`; resolves with the error, or undefined once listening. */
function listenOn(server: Server, port: number): Promise<unknown> {
  const { promise, resolve } = Promise.withResolvers<unknown>();
  const failed = (error: unknown) => resolve(error);
  server.once("error", failed);
  server.listen({ host: "127.0.0.1", port }, () => {
    server.off("error", failed);
    resolve(undefined);
  });
  return promise;
}

/** The environment with the proxy variables that named `from` naming `to` instead. */
function movedProxy(
  env: Readonly<Record<string, string | undefined>>,
  from: number,
  to: number,
): Record<string, string | undefined> {
  const moved = { ...env };
  for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"]) {
    for (const key of [name, name.toLowerCase()]) {
      moved[key] = env[key]?.replace(`127.0.0.1:${from}`, `127.0.0.1:${to}`);
    }
  }
  return moved;
}
