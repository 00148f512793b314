/** What dsh advertises in `initialize`, and what it reads from the client's capabilities. */
import * as acp from "@agentclientprotocol/sdk";
import { REMOTE_TRANSPORTS } from "../mcp/types.ts";
import type { PresentOptions } from "./present.ts";

/** The id of dsh's one auth method (ACP terminal auth: the editor runs `dsh acp --login`). */
export const LOGIN_METHOD_ID = "dsh-login";

/** `sessionCapabilities.fork`, which the stable types do not name yet. */
const FORK: { readonly fork: Record<string, never> } = { fork: {} };

/**
 * How a user signs in: where the client runs terminal auth, a terminal method that runs
 * `dsh acp --login`; elsewhere an agent method whose `authenticate` checks a key is there.
 */
export function authMethods(capabilities: acp.ClientCapabilities | undefined): acp.AuthMethod[] {
  const name = "Log in with an API key";
  if (takesTerminalAuth(capabilities)) {
    return [
      {
        id: LOGIN_METHOD_ID,
        name,
        description: "Paste your DeepSeek (or OpenAI-compatible) API key; dsh checks and stores it",
        type: "terminal",
        args: ["--login"],
      },
    ];
  }
  return [
    {
      id: LOGIN_METHOD_ID,
      name,
      description: "Run `dsh login` in a terminal, or set DSH_API_KEY in the agent's environment",
    },
  ];
}

/** `auth.terminal`, or the legacy `_meta["terminal-auth"]` flag older clients send instead. */
function takesTerminalAuth(capabilities: acp.ClientCapabilities | undefined): boolean {
  return capabilities?.auth?.terminal === true || capabilities?._meta?.["terminal-auth"] === true;
}

/**
 * The `initialize` answer: always protocol version 1, whatever the client asked for. Images
 * are advertised when some model of the catalog has vision (`images`).
 */
export function initializeResponse(
  version: string,
  capabilities?: acp.ClientCapabilities,
  images = false,
): acp.InitializeResponse {
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: images, audio: false, embeddedContext: true },
      // `fork` is ACP's unstable fork, which dsh serves too.
      sessionCapabilities: {
        list: {},
        close: {},
        resume: {},
        delete: {},
        additionalDirectories: {},
        ...FORK,
      },
      mcpCapabilities: Object.fromEntries(REMOTE_TRANSPORTS.map((name) => [name, true])),
      auth: { logout: {} },
    },
    agentInfo: { name: "dsh", title: "dsh", version },
    authMethods: authMethods(capabilities),
  };
}

/** What the bridge may use of this client, read once from `initialize`. */
export interface ClientOptions extends PresentOptions {
  /** `elicitation.form` present and non-null: questions may be asked as forms. */
  readonly elicitForm: boolean;
  /** `session.compaction` present and non-null: compactions become `compaction_update`s. */
  readonly compaction?: boolean;
  /** `session.notices` present and non-null: notices go out as `notice` updates. */
  readonly notices: boolean;
}

/** Only an explicit `true` turns Zed's terminal cards on; `{}` alone advertises no form mode. */
export function clientOptionsOf(capabilities: acp.ClientCapabilities | undefined): ClientOptions {
  return {
    terminalOutput: capabilities?._meta?.terminal_output === true,
    elicitForm: capabilities?.elicitation?.form != null,
    compaction: capabilities?.session?.compaction != null,
    notices: capabilities?.session?.notices != null,
  };
}
