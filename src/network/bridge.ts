/**
 * `dsh __net-bridge SOCKET PORT -- COMMAND...`: run inside a command's sandbox where dsh did not
 * make the namespace itself. It listens on `127.0.0.1:PORT` in the sandbox's network namespace,
 * passes every connection to dsh's proxy over the Unix socket bound in at SOCKET, and runs the
 * command as its child; it ends with the command's exit status (or its signal).
 */
import { createConnection, createServer } from "node:net";

/** Runs the bridge; resolves with the exit code to end with. */
export async function runBridge(argv: readonly string[]): Promise<number> {
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
  const ready = Promise.withResolvers<void>();
  server.once("error", ready.reject);
  server.listen({ host: "127.0.0.1", port }, ready.resolve);
  try {
    await ready.promise;
  } catch (error) {
    process.stderr.write(
      `dsh: the network bridge cannot listen on 127.0.0.1:${port}: ${String(error)}\n`,
    );
    return 125;
  }
  const child = Bun.spawn(command, { stdio: ["inherit", "inherit", "inherit"] });
  const code = await child.exited;
  if (child.signalCode !== null) process.kill(process.pid, child.signalCode);
  return code;
}
