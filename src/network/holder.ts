/**
 * What the network needs of a session's namespace where dsh may not make namespaces itself (not
 * root): a holder process keeps it, and each command enters it before its own sandbox. The
 * holders are made in `exec/network-holder.ts` (they are processes tied to dsh like commands)
 * and handed to the network service by the composition root.
 */
import type { EnterNamespace } from "./sandbox-link.ts";

/** A session's namespace, held by its holder process. */
export interface NetworkHolder {
  /**
   * What starts a command inside the namespace (before its bwrap), by descriptors of the
   * namespace dsh opened when the holder started, never by the holder's pid (which another
   * process may have once the holder is gone).
   */
  readonly enter: EnterNamespace;
  /** Whether the holder still holds the same namespace. */
  alive(): boolean;
  /** Ends the holder (its namespace lives on while a command is still in it). Never throws. */
  close(): void;
}

export interface NetworkHolders {
  /** A new holder; throws when it cannot be made. */
  make(): Promise<NetworkHolder>;
}
