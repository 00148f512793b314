/**
 * A yes/no question to the user outside any turn (a command's, such as /undo's conflicts or
 * /add-dir's): a tool call of its own on the client, then a permission request on it.
 */
import * as acp from "@agentclientprotocol/sdk";
import type { Logger } from "../log.ts";

/** A yes/no question for the user. */
export interface SessionQuestion {
  readonly title: string;
  readonly detail: string;
  /** The labels of the two answers. */
  readonly yes: string;
  readonly no: string;
}

export interface AskUserDeps {
  readonly client: acp.AgentContext;
  /** Sends the session's updates in order. */
  readonly send: (updates: readonly acp.SessionUpdate[]) => Promise<void>;
  readonly sessionId: string;
  readonly logger: Logger;
}

/** True when the user chose `yes`; false when declined, cancelled or unanswered. */
export async function askUser(
  deps: AskUserDeps,
  question: SessionQuestion,
  signal: AbortSignal,
): Promise<boolean> {
  const { client, send, sessionId } = deps;
  const toolCallId = `dsh-ask-${crypto.randomUUID()}`;
  const content: acp.ToolCallContent[] = [
    { type: "content", content: { type: "text", text: question.detail } },
  ];
  await send([
    {
      sessionUpdate: "tool_call",
      toolCallId,
      title: question.title,
      kind: "edit",
      status: "pending",
      content,
    },
  ]);
  let yes = false;
  try {
    const response = await client.request(
      acp.methods.client.session.requestPermission,
      {
        sessionId,
        toolCall: { toolCallId, title: question.title, content },
        options: [
          { optionId: "yes", name: question.yes, kind: "allow_once" },
          { optionId: "no", name: question.no, kind: "reject_once" },
        ],
      },
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    );
    yes = response.outcome.outcome === "selected" && response.outcome.optionId === "yes";
  } catch (error) {
    deps.logger.info("a question ended without an answer; taken as no", { sessionId, error });
  }
  await send([
    { sessionUpdate: "tool_call_update", toolCallId, status: yes ? "completed" : "failed" },
  ]);
  return yes;
}
