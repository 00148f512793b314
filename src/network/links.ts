/**
 * How one command's connections reach the proxy, per platform and privilege:
 *
 * - `namespace` (Linux, where dsh may make network namespaces, i.e. as root): the command runs
 *   in a namespace dsh made, whose only listener is dsh's own socket on `127.0.0.1:PORT`.
 * - `bridge` (Linux otherwise): bwrap makes the namespace; a Unix socket of dsh's is bound into
 *   it, and dsh's own binary runs there first, listening on `127.0.0.1:PORT` and passing each
 *   connection to that socket, then runs the command as its child. A session's commands share
 *   one namespace, held by a process of the session (`exec/network-holder.ts`), each bridge on
 *   a port of its own there; where no holder can be made, each command gets its own namespace.
 * - `port` (macOS): a listener on the host's loopback, the one port the Seatbelt profile lets
 *   the command reach.
 *
 * Each command has its own listener, so every connection is known to be that command's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { type Server, type Socket, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NetworkHolder, NetworkHolders } from "./holder.ts";
import type { CommandNamespace, Namespaces, SharedNamespace } from "./namespace.ts";
import { BRIDGE_SOCKET, SANDBOX_PROXY_PORT, type SandboxAttach } from "./sandbox-link.ts";

/** A command's listener: where its connections arrive, and how the sandbox reaches it. */
export interface Listener {
  readonly port: number;
  readonly attach: SandboxAttach;
  /** Stops accepting and drops the listener's files. Never throws. */
  close(): void;
}

/** Makes listeners; `onConnection` is called for each accepted connection. */
export interface ListenerMaker {
  /**
   * With `scope` (a session's id), a `namespace` or `bridge` command runs in the scope's one
   * namespace, made at its first command and kept until `endScope`, with a listener of its own
   * there (a bridge on a port of its own).
   */
  open(
    kind: "namespace" | "bridge" | "port",
    onConnection: (socket: Socket) => void,
    scope?: string,
  ): Promise<Listener>;
  /** Drops the scope's namespace (it goes once nothing runs in it). */
  endScope(scope: string): void;
  /** Removes the socket directory and every scope's namespace. */
  dispose(): void;
}

export interface ListenerDeps {
  readonly namespaces: () => Promise<Namespaces | undefined>;
  /** The command that runs dsh's bridge: dsh's own executable (and its entry, from source). */
  readonly selfArgv: readonly string[];
  /** Holders of sessions' namespaces for bridged commands; each command gets its own without. */
  readonly holders?: () => Promise<NetworkHolders | undefined>;
}

export function createListenerMaker(deps: ListenerDeps): ListenerMaker {
  let socketDir: string | undefined;
  let count = 0;
  // A namespace with its listener, made ahead for the next command.
  let spare: Promise<Prepared> | undefined;
  const scopes = new Map<string, { namespace: SharedNamespace; next: number }>();
  const held = new Map<string, Promise<HeldScope | undefined>>();
  // The scope's holder, a new one where the last has ended; undefined where none can be made.
  const holderOf = async (scope: string): Promise<HeldScope | undefined> => {
    const current = held.get(scope);
    const entry = current === undefined ? undefined : await current;
    if (entry?.holder.alive()) return entry;
    // Another command of the scope may have replaced it meanwhile.
    if (held.get(scope) !== current) return holderOf(scope);
    entry?.holder.close();
    const making = (async () => {
      const holders = await deps.holders?.();
      const holder = await holders?.make().catch(() => undefined);
      return holder === undefined ? undefined : { holder, next: 0 };
    })();
    held.set(scope, making);
    const made = await making;
    if (held.get(scope) === making) {
      if (made === undefined) held.delete(scope);
      return made;
    }
    // The scope ended (or was given another holder) meanwhile: this command runs on its own.
    made?.holder.close();
    return undefined;
  };
  const dir = () => {
    socketDir ??= mkdtempSync(join(tmpdir(), "dsh-net-"));
    return socketDir;
  };
  return {
    async open(kind, onConnection, scope) {
      if (kind === "namespace" && scope !== undefined) {
        const namespaces = await deps.namespaces();
        if (namespaces === undefined)
          throw new Error("this process cannot make network namespaces");
        let entry = scopes.get(scope);
        if (entry === undefined) {
          entry = { namespace: namespaces.shared(), next: 0 };
          scopes.set(scope, entry);
        }
        return scopedListener(entry, onConnection);
      }
      if (kind === "namespace") {
        const namespaces = await deps.namespaces();
        if (namespaces === undefined)
          throw new Error("this process cannot make network namespaces");
        const taken = spare ?? prepare(namespaces);
        spare = undefined;
        // A spare that could not be made is made again, now.
        const { namespace, server: ready, route } = await taken.catch(() => prepare(namespaces));
        route.to = onConnection;
        let entered = false;
        return {
          port: SANDBOX_PROXY_PORT,
          attach: {
            type: "namespace",
            within(start) {
              entered = true;
              try {
                return namespace.within(start);
              } finally {
                namespace.close();
                // The next command's namespace is made while this one runs, off its start-up.
                setTimeout(() => {
                  spare ??= prepare(namespaces);
                  spare.catch(() => {
                    spare = undefined;
                  });
                }, 0);
              }
            },
          },
          close() {
            if (!entered) namespace.close();
            entered = true;
            closeServer(ready);
          },
        };
      }
      const server = createServer({ pauseOnConnect: true }, onConnection);
      if (kind === "bridge") {
        count++;
        const socket = join(dir(), `${count}.sock`);
        const shared = scope === undefined ? undefined : await holderOf(scope);
        const port = shared === undefined ? SANDBOX_PROXY_PORT : nextPort(shared);
        await listening(server, { path: socket });
        return {
          port,
          attach: {
            type: "bridge",
            socket,
            bridge: [...deps.selfArgv, "__net-bridge", BRIDGE_SOCKET, String(port)],
            ...(shared === undefined ? {} : { enter: shared.holder.enter }),
          },
          close: () => {
            closeServer(server);
            rmSync(socket, { force: true });
          },
        };
      }
      await listening(server, { host: "127.0.0.1", port: 0 });
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      return { port, attach: { type: "port", port }, close: () => closeServer(server) };
    },
    endScope(scope) {
      scopes.get(scope)?.namespace.close();
      scopes.delete(scope);
      void held.get(scope)?.then((entry) => entry?.holder.close());
      held.delete(scope);
    },
    dispose() {
      for (const entry of held.values()) void entry.then((made) => made?.holder.close());
      held.clear();
      for (const entry of scopes.values()) entry.namespace.close();
      scopes.clear();
      const left = spare;
      spare = undefined;
      void left?.then(
        (prepared) => {
          closeServer(prepared.server);
          prepared.namespace.close();
        },
        () => undefined,
      );
      if (socketDir !== undefined) rmSync(socketDir, { recursive: true, force: true });
    },
  };
}

/** Ports a scope's listeners take in turn; one a command's own server holds is skipped. */
const SCOPE_PORTS = 1000;

interface HeldScope {
  readonly holder: NetworkHolder;
  next: number;
}

/**
 * The next port in turn for a command's bridge; one a server of the session holds, the bridge
 * passes over itself (and points the command's proxy variables at the one it took).
 */
function nextPort(entry: HeldScope): number {
  return SANDBOX_PROXY_PORT + (entry.next++ % SCOPE_PORTS);
}

/** A listener of its own for one command in a scope's shared namespace. */
async function scopedListener(
  entry: { namespace: SharedNamespace; next: number },
  onConnection: (socket: Socket) => void,
): Promise<Listener> {
  let port = SANDBOX_PROXY_PORT;
  let fd: number | undefined;
  for (let tries = 0; tries < SCOPE_PORTS && fd === undefined; tries++) {
    port = SANDBOX_PROXY_PORT + (entry.next++ % SCOPE_PORTS);
    fd = entry.namespace.listen(port);
  }
  if (fd === undefined) throw new Error("no free port for the proxy in the session's namespace");
  const server = createServer({ pauseOnConnect: true }, onConnection);
  await listening(server, { fd });
  const { namespace } = entry;
  return {
    port,
    attach: { type: "namespace", within: (start) => namespace.within(start) },
    close: () => closeServer(server),
  };
}

interface Prepared {
  readonly namespace: CommandNamespace;
  readonly server: Server;
  /** Where its connections go once a command has it; until then they are dropped. */
  readonly route: { to?: (socket: Socket) => void };
}

/** A fresh namespace whose listener is served, not yet any command's. */
async function prepare(namespaces: Namespaces): Promise<Prepared> {
  const route: Prepared["route"] = {};
  const server = createServer({ pauseOnConnect: true }, (socket) => {
    if (route.to === undefined) socket.destroy();
    else route.to(socket);
  });
  const namespace = namespaces.open(SANDBOX_PROXY_PORT);
  try {
    await listening(server, { fd: namespace.fd });
  } catch (error) {
    namespace.close();
    throw error;
  }
  return { namespace, server, route };
}

function listening(
  server: Server,
  options: { fd: number } | { path: string } | { host: string; port: number },
): Promise<void> {
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  server.once("error", reject);
  server.listen(options, () => {
    server.off("error", reject);
    resolve();
  });
  return promise;
}

function closeServer(server: Server): void {
  try {
    server.close();
  } catch {
    // Already closed.
  }
}
