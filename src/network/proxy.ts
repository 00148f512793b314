/**
 * The proxy of the dsh process: one per process, made at the first sandboxed command. Each
 * command gets a listener of its own (`links.ts`) and an access of its own (its answers and
 * refusals); every connection on that listener is served for that command.
 */
import type { Socket } from "node:net";
import type { Logger } from "../log.ts";
import type { ListenerMaker } from "./links.ts";
import type { SandboxAttach } from "./sandbox-link.ts";
import { serveConnection } from "./serve.ts";
import type { NetworkAccess, NetworkRequester } from "./types.ts";

/** One command's network, from before its spawn until it has ended. */
export interface CommandNetwork {
  /** Where the command's environment points: `127.0.0.1:port` as the command sees it. */
  readonly port: number;
  readonly attach: SandboxAttach;
  /**
   * Ends it: stops the listener, drops the command's connections, ends pending questions.
   * Returns one note per refused host for the command's result. Idempotent; never throws.
   */
  close(): string[];
}

export interface CommandProxy {
  /** `scope`: the session the command belongs to (see `ListenerMaker.open`). */
  open(
    requester: NetworkRequester,
    kind: "namespace" | "bridge" | "port",
    scope?: string,
  ): Promise<CommandNetwork>;
  /** Drops a session's shared namespace. */
  endScope(scope: string): void;
  /** Closes every command's network. */
  dispose(): void;
}

export function createProxy(deps: {
  readonly access: NetworkAccess;
  readonly listeners: ListenerMaker;
  readonly logger: Logger;
}): CommandProxy {
  const open = new Set<CommandNetwork>();
  return {
    async open(requester, kind, scope) {
      const access = deps.access.forRequester(requester);
      const ended = new AbortController();
      const sockets = new Set<Socket>();
      const listener = await deps.listeners.open(
        kind,
        (socket) => {
          sockets.add(socket);
          socket.once("close", () => sockets.delete(socket));
          void serveConnection(socket, access, ended.signal);
        },
        scope,
      );
      let notes: string[] | undefined;
      const network: CommandNetwork = {
        port: listener.port,
        attach: listener.attach,
        close() {
          if (notes !== undefined) return notes;
          open.delete(network);
          listener.close();
          access.close();
          ended.abort();
          for (const socket of sockets) socket.destroy();
          notes = access.notes();
          return notes;
        },
      };
      open.add(network);
      return network;
    },
    endScope: (scope) => deps.listeners.endScope(scope),
    dispose() {
      for (const network of [...open]) network.close();
      deps.listeners.dispose();
    },
  };
}
