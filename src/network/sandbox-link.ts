/**
 * What a sandbox backend needs to know of a command's network: where the proxy listens as the
 * command sees it, and what the sandbox must do so the command reaches it (`links.ts` makes
 * the listeners). Kept apart so the backends depend on these names only.
 */

/** The port the proxy listens on inside each command's own network namespace. */
export const SANDBOX_PROXY_PORT = 41080;

/** Where the bridge finds dsh's socket inside the sandbox (its private `/tmp`). */
export const BRIDGE_SOCKET = "/tmp/.dsh-proxy.sock";

/** What the sandbox must do for the command to reach its listener. */
export type SandboxAttach =
  /**
   * Spawn the command through `within` (it enters the namespace), and share that network.
   * `within` checks the spawned process is in it; one that is not is killed and it throws.
   */
  | { readonly type: "namespace"; within<T extends { readonly pid: number }>(start: () => T): T }
  /**
   * Bind `socket` at `BRIDGE_SOCKET`; run `bridge`, then `--`, then the command. With `enter`,
   * the sandbox starts through it (into a session's namespace) and shares that network.
   */
  | {
      readonly type: "bridge";
      readonly socket: string;
      readonly bridge: readonly string[];
      readonly enter?: EnterNamespace;
    }
  /** Let the command reach `127.0.0.1:port` on the host. */
  | { readonly type: "port"; readonly port: number };

/**
 * How one command starts inside a session's namespace, for a child that gets the entry's `fds`
 * as its descriptors `firstFd`, `firstFd + 1`, ... Throws when the namespace is gone.
 */
export type EnterNamespace = (firstFd: number) => NamespaceEntry;

export interface NamespaceEntry {
  /** What runs what follows inside the namespace. */
  readonly argv: readonly string[];
  /** dsh's descriptors of the namespace, opened for this command alone. */
  readonly fds: readonly number[];
  /** Closes `fds`, once the command has ended. Never throws. */
  close(): void;
}
