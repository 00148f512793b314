/** The ACP bridge's public surface: what the composition hands it and what it exposes. */
import type * as acp from "@agentclientprotocol/sdk";
import type { AgentService } from "../agent/types.ts";
import type { ApprovalAnswer, AskedRequest } from "../approval/types.ts";
import type { SandboxStatus } from "../exec/types.ts";
import type { AllowedHosts } from "../network/types.ts";
import type { Logger } from "../log.ts";
import type { AcpModel } from "./config-options.ts";

export type { AcpModel };

export interface RunAcpDeps {
  readonly service: AgentService;
  /** The models the `model` select offers (the catalog's, in order). */
  readonly models: () => readonly AcpModel[];
  /**
   * Whether an API key is there now; without one `session/new` answers `auth_required` so the
   * editor shows its sign-in. Always true when absent.
   */
  readonly hasApiKey?: () => boolean;
  /** Removes the stored API key (ACP `logout`). Nothing to remove when absent. */
  readonly logout?: () => void;
  /** dsh's version, shown by clients in `agentInfo`. */
  readonly version: string;
  /**
   * Called once, right after the first `initialize` is answered: readies what the first
   * session needs (the client sends `session/new` next), off the `initialize` path.
   */
  readonly prepare?: () => void;
  /** Some model takes images: `promptCapabilities.image` is advertised. Default false. */
  readonly images?: boolean;
  /** The sandbox backend's probe, for `/status`. */
  readonly sandbox?: () => Promise<SandboxStatus>;
  /** The hosts a session's sandboxed commands may reach, for `/status`. */
  readonly allowedHosts?: (sessionId: string, cwd: string) => Promise<AllowedHosts>;
  readonly logger: Logger;
  /** Bytes from the client (stdin). Its end is the end of the connection. */
  readonly input: ReadableStream<Uint8Array>;
  /** Bytes to the client (stdout): nothing but JSON-RPC lines is ever written here. */
  readonly output: WritableStream<Uint8Array>;
  /**
   * Resolves when the client stopped reading the output while nothing was being written to it
   * (a write that fails is noticed by the bridge itself). Never, when absent.
   */
  readonly outputGone?: Promise<void>;
  /** Where bridged sessions register so approval requests reach their client. */
  readonly approvals?: AcpApprovalRegistry;
  /** Where bridged sessions register so questions (form elicitation) reach their client. */
  readonly questions?: AcpFormRegistry;
  /**
   * Shuts the bridge down when aborted (SIGINT/SIGTERM): running prompts are cancelled and
   * answered, then the connection closes and every handle is disposed.
   */
  readonly signal?: AbortSignal;
}

/** A bridged session's way of asking its client for a decision on one of its tool calls. */
export interface AcpPermissionTarget {
  requestPermission(
    request: AskedRequest & { readonly toolCallId: string },
    signal: AbortSignal,
  ): Promise<ApprovalAnswer>;
}

/** Sessions live on an ACP connection register here while they are open. */
export interface AcpApprovalRegistry {
  /** Routes approval requests for `sessionId` to `target` until the returned function runs. */
  register(sessionId: string, target: AcpPermissionTarget): () => void;
}

/** A bridged session's way of showing its client a form (`elicitation/create`). */
export interface AcpFormTarget {
  /** The client advertised `elicitation.form` at initialize. */
  readonly canElicitForm: boolean;
  /**
   * Sends `elicitation/create` once the tool call it names is on the client; aborting
   * `signal` cancels the request (the promise then rejects).
   */
  elicit(
    params: acp.CreateElicitationRequest,
    signal: AbortSignal,
  ): Promise<acp.CreateElicitationResponse>;
}

/** Sessions live on an ACP connection register here while they are open. */
export interface AcpFormRegistry {
  register(sessionId: string, target: AcpFormTarget): () => void;
}
