/** What dsh advertises in `initialize`, and what it reads from the client's capabilities. */
import * as acp from "@agentclientprotocol/sdk";
import type { PresentOptions } from "./present.ts";

/**
 * The `initialize` answer: always protocol version 1, whatever the client asked for. Images
 * are advertised when some model of the catalog has vision (`images`).
 */
export function initializeResponse(version: string, images: boolean): acp.InitializeResponse {
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: images, audio: false, embeddedContext: true },
      sessionCapabilities: { list: {}, close: {}, resume: {}, delete: {} },
    },
    agentInfo: { name: "dsh", title: "dsh", version },
    authMethods: [],
  };
}

/** What the bridge may use of this client, read once from `initialize`. */
export interface ClientOptions extends PresentOptions {
  /** `elicitation.form` present and non-null: questions may be asked as forms. */
  readonly elicitForm: boolean;
}

/** Only an explicit `true` turns Zed's terminal cards on; `{}` alone advertises no form mode. */
export function clientOptionsOf(capabilities: acp.ClientCapabilities | undefined): ClientOptions {
  return {
    terminalOutput: capabilities?._meta?.terminal_output === true,
    elicitForm: capabilities?.elicitation?.form != null,
  };
}
