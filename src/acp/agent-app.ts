/**
 * The ACP agent app: registers every method dsh serves on the SDK's stable v1 app and funnels
 * whatever a handler throws through one error mapping.
 */
import * as acp from "@agentclientprotocol/sdk";
import type { AgentService } from "../agent/types.ts";
import type { SandboxStatus } from "../exec/types.ts";
import type { AllowedHosts } from "../network/types.ts";
import type { Logger } from "../log.ts";
import {
  type ClientOptions,
  LOGIN_METHOD_ID,
  clientOptionsOf,
  initializeResponse,
} from "./capabilities.ts";
import type { AcpModel } from "./config-options.ts";
import { toRequestError } from "./errors.ts";
import { errorMessage } from "../errors.ts";
import { parseForkRequest } from "./fork-request.ts";
import { type UpdateWriter, createSessionHandlers } from "./session-handlers.ts";
import type { SessionTable } from "./sessions.ts";

export interface AgentAppDeps {
  readonly service: AgentService;
  readonly models: () => readonly AcpModel[];
  readonly version: string;
  /** Readies the first session's needs, once, after the first `initialize` is answered. */
  readonly prepare?: () => void;
  readonly images?: boolean;
  readonly sandbox?: () => Promise<SandboxStatus>;
  /** The hosts a session's sandboxed commands may reach, for `/status`. */
  readonly allowedHosts?: (sessionId: string, cwd: string) => Promise<AllowedHosts>;
  readonly logger: Logger;
  readonly table: SessionTable;
  /** Receives what the client supports once `initialize` arrives. */
  readonly setClientOptions: (options: ClientOptions) => void;
  readonly clientOptions: () => ClientOptions;
  /** Whether an API key is there now (the environment's, or one `dsh login` stored). */
  readonly hasApiKey: () => boolean;
  /** Removes the key `dsh login` stored (ACP `logout`); a key from the environment stays. */
  readonly logout?: () => void;
  /** Writes a burst of `session/update`s (a replay) straight to the output, in order. */
  readonly writeUpdates: UpdateWriter;
}

/** Builds the agent app for one connection. */
export function createAgentApp(deps: AgentAppDeps): acp.AgentApp {
  const { table, logger } = deps;
  const sessions = createSessionHandlers(deps);
  const m = acp.methods.agent;
  let prepared = false;

  return (
    acp
      .agent({ name: "dsh" })
      .onRequest(m.initialize, ({ params }) => {
        deps.setClientOptions(clientOptionsOf(params.clientCapabilities));
        logger.info("client connected", {
          client: params.clientInfo?.name,
          clientVersion: params.clientInfo?.version,
          protocolVersion: params.protocolVersion,
        });
        if (!prepared && deps.prepare !== undefined) {
          prepared = true;
          // After the response: the SDK writes it in the microtasks that follow this handler,
          // and an immediate runs after them, before a timer would (at least 1 ms later).
          setImmediate(deps.prepare);
        }
        return initializeResponse(deps.version, params.clientCapabilities, deps.images ?? false);
      })
      .onRequest(m.authenticate, () => {
        if (deps.hasApiKey()) return {};
        throw noKeyError();
      })
      .onRequest(m.logout, () => {
        deps.logout?.();
        logger.info("signed out: the stored key was removed");
        return {};
      })
      .onRequest(m.session.new, ({ params, client }) => {
        // Zed shows its sign-in flow for this error instead of a turn that fails later.
        if (!deps.hasApiKey()) throw noKeyError();
        return guard(() => sessions.new(params, client));
      })
      .onRequest(m.session.load, ({ params, client }) =>
        guard(() => sessions.load(params, client), params.sessionId),
      )
      .onRequest(m.session.resume, ({ params, client }) =>
        guard(() => sessions.resume(params, client), params.sessionId),
      )
      .onRequest(m.session.list, ({ params }) => guard(() => sessions.list(params)))
      // Unstable in SDK 2.4: served by name, its params checked here.
      .onRequest(FORK_METHOD, parseForkParams, ({ params, client }) =>
        guard(() => sessions.fork(params, client), params.sessionId),
      )
      .onRequest(m.session.close, ({ params }) =>
        guard(() => sessions.close(params), params.sessionId),
      )
      .onRequest(m.session.delete, ({ params }) =>
        guard(() => sessions.delete(params), params.sessionId),
      )
      .onRequest(m.session.setConfigOption, ({ params }) =>
        guard(() => sessions.setConfigOption(params), params.sessionId),
      )
      .onRequest(m.session.prompt, ({ params, signal }) =>
        guard(() => sessions.prompt(params, signal), params.sessionId),
      )
      .onNotification(m.session.cancel, ({ params }) => {
        // Cancel for an idle, loading or unknown session is ignored, as the spec asks; one for
        // a session still opening cancels the prompts that wait for it.
        table.cancel(params.sessionId);
      })
  );
}

const FORK_METHOD = "session/fork";

/** The fork's params; what does not parse is answered -32602. */
function parseForkParams(params: unknown) {
  try {
    return parseForkRequest(params);
  } catch (error) {
    throw acp.RequestError.invalidParams(undefined, errorMessage(error));
  }
}

/** ACP's `auth_required` (-32000), saying how to sign in. */
function noKeyError(): acp.RequestError {
  return acp.RequestError.authRequired(
    { authMethods: [LOGIN_METHOD_ID] },
    "no API key: sign in (dsh login in a terminal), or set DSH_API_KEY in the agent's environment",
  );
}

/** Runs a handler body, mapping anything it throws to a JSON-RPC error. */
async function guard<T>(body: () => Promise<T>, sessionId?: string): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw toRequestError(error, sessionId === undefined ? {} : { sessionId });
  }
}
