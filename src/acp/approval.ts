/**
 * The ACP answerer of the approval seam. It takes the requests that belong to a session live
 * on this connection and name a tool call, and turns them into `session/request_permission`;
 * everything else passes to the next answerer. Anything but an explicit allow is a deny.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { ApprovalAnswer, ApprovalAnswerer, AskedRequest } from "../approval/types.ts";
import { type PresentOptions, contentOf, fence, kindOf, textContent } from "./present.ts";
import { createSessionTargets } from "./session-targets.ts";
import type { AcpApprovalRegistry, AcpPermissionTarget } from "./types.ts";

const ALLOW = "allow";
const ALLOW_ALWAYS = "allow_always";
const REJECT = "reject";

/** Creates the answerer; the composition hands the same object to `runAcpServer`. */
export function createAcpApprovalAnswerer(): ApprovalAnswerer & AcpApprovalRegistry {
  const targets = createSessionTargets<AcpPermissionTarget>();
  return {
    register: targets.register,
    async answer(request, signal): Promise<ApprovalAnswer | "pass"> {
      const target = targets.get(request.sessionId);
      const { toolCallId } = request;
      if (target === undefined || toolCallId === undefined) return "pass";
      try {
        return await target.requestPermission({ ...request, toolCallId }, signal);
      } catch {
        return "deny";
      }
    },
  };
}

/** The `session/request_permission` params for a request on an announced tool call. */
export function permissionParams(
  request: AskedRequest & { readonly toolCallId: string },
  options: PresentOptions,
): acp.RequestPermissionRequest {
  const { intent } = request;
  const shown =
    intent.type === "terminal"
      ? [
          textContent(fence("sh", `$ ${intent.command}`)),
          ...(options.terminalOutput ? contentOf(intent, request.toolCallId, options) : []),
        ]
      : contentOf(intent, request.toolCallId, options);
  // The call keeps the title it was announced with (Zed relabels the card, even a terminal's,
  // with any new title); what is asked goes into the text above the diff or command.
  const question = request.reason === "" ? request.title : `${request.title}: ${request.reason}`;
  const toolCall: acp.ToolCallUpdate = {
    toolCallId: request.toolCallId,
    title: intent.title,
    kind: kindOf(intent),
    content: [textContent(question), ...shown],
  };
  if (request.rawInput !== undefined) toolCall.rawInput = request.rawInput;
  return {
    sessionId: request.sessionId,
    toolCall,
    options: [
      {
        optionId: ALLOW,
        name: request.kind === "network" ? allowOnceForNetwork(intent) : "Allow once",
        kind: "allow_once",
      },
      // The label states the rule and its scope (``Always allow `npm test` in ~/src/app``).
      ...(request.offer === undefined
        ? []
        : [{ optionId: ALLOW_ALWAYS, name: request.offer.label, kind: "allow_always" as const }]),
      { optionId: REJECT, name: "Reject", kind: "reject_once" },
    ],
  };
}

/** "Allow once" names what it covers: the one command, or the one fetch. */
function allowOnceForNetwork(intent: AskedRequest["intent"]): string {
  return intent.type === "generic" && intent.kind === "fetch"
    ? "Allow once for this fetch"
    : "Allow once for this command";
}

/** Only an allow option selected allows; reject, cancelled and unknown ids deny. */
export function decisionOf(response: acp.RequestPermissionResponse): ApprovalAnswer {
  if (response.outcome.outcome !== "selected") return "deny";
  if (response.outcome.optionId === ALLOW) return "allow";
  if (response.outcome.optionId === ALLOW_ALWAYS) return "allow_always";
  return "deny";
}
