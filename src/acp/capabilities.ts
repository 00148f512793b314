/** What dsh advertises in `initialize`, and what it reads from the client's capabilities. */
import * as acp from "@agentclientprotocol/sdk";
import type { PresentOptions } from "./present.ts";

/** The `initialize` answer: always protocol version 1, whatever the client asked for. */
export function initializeResponse(version: string): acp.InitializeResponse {
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: false },
      sessionCapabilities: { list: {}, close: {}, resume: {} },
    },
    agentInfo: { name: "dsh", title: "dsh", version },
    authMethods: [],
  };
}

/** What the bridge may use of this client, read once from `initialize`. */
export interface ClientOptions extends PresentOptions {
  /** `elicitation.form` present and non-null: questions may be asked as forms. */
  readonly elicitForm: boolean;
  /** `session.notices` present and non-null: notices go out as `notice` updates. */
  readonly notices: boolean;
}

/** Only an explicit `true` turns Zed's terminal cards on; `{}` alone advertises no form mode. */
export function clientOptionsOf(capabilities: acp.ClientCapabilities | undefined): ClientOptions {
  return {
    terminalOutput: capabilities?._meta?.terminal_output === true,
    elicitForm: capabilities?.elicitation?.form != null,
    notices: capabilities?.session?.notices != null,
  };
}
