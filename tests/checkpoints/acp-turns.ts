/** Prompts over a spawned `dsh acp` and what came back, for the checkpoint and fork suites. */
import * as acp from "@agentclientprotocol/sdk";
import type { AcpProcess } from "../support/acp-process.ts";
import type { ModelServer } from "../support/model-server.ts";

/** Sends a text prompt; resolves with its stop reason and the agent's text sent meanwhile. */
export async function promptFor(
  dsh: AcpProcess,
  sessionId: string,
  text: string,
): Promise<{ stopReason: acp.StopReason; reply: string }> {
  const before = dsh.updates.length;
  const response = await dsh.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text }],
  });
  const reply = dsh.updates
    .slice(before)
    .flatMap((n) =>
      n.sessionId === sessionId &&
      n.update.sessionUpdate === "agent_message_chunk" &&
      n.update.content.type === "text"
        ? [n.update.content.text]
        : [],
    )
    .join("");
  return { stopReason: response.stopReason, reply };
}

/** The text of each user message of model request `n`. */
export function userTexts(model: ModelServer, n: number): string[] {
  const messages = model.requests[n]?.body.messages as { role: string; content: unknown }[];
  return messages
    .filter((message) => message.role === "user")
    .map((message) => (typeof message.content === "string" ? message.content : "?"));
}
