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

/** How to present to this client. Only an explicit `true` turns Zed's terminal cards on. */
export function presentOptionsOf(capabilities: acp.ClientCapabilities | undefined): PresentOptions {
  return { terminalOutput: capabilities?._meta?.terminal_output === true };
}
