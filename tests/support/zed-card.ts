/**
 * A tool call's card as Zed keeps it, folded from what an agent wrote, in wire order. The
 * rules are Zed's (zed-industries/zed `crates/acp_thread/src/acp_thread.rs`):
 *
 * - a `tool_call`, and the `toolCall` of a `session/request_permission`, upsert the card
 *   (`upsert_tool_call`, `request_tool_call_authorization` → `upsert_tool_call_inner`); the
 *   request leaves it waiting for confirmation;
 * - a `tool_call_update` patches it (`update_tool_call` → `ToolCall::update_fields`); one for
 *   an id Zed never saw becomes a failed "Tool call not found" card;
 * - a `content` list is laid over the card's list entry by entry (`update_from_acp`: an entry
 *   of another kind, or a diff with other texts, is rebuilt), later entries are appended and
 *   the list is cut to the new length: the card shows exactly the list last sent, never the
 *   two lists together;
 * - `rawOutput` becomes the content only while the content is empty.
 */
import * as v from "valibot";
import type { WireMessage } from "./acp-harness.ts";

/** One entry of a card's content, as shown. */
export type CardEntry =
  | { readonly type: "text"; readonly text: string }
  | {
      readonly type: "diff";
      readonly path: string;
      readonly oldText: string | null;
      readonly newText: string;
    }
  | { readonly type: "terminal"; readonly terminalId: string };

export interface ZedCard {
  readonly title: string;
  readonly status: string;
  readonly content: readonly CardEntry[];
}

const Content = v.variant("type", [
  v.object({ type: v.literal("content"), content: v.looseObject({ type: v.string() }) }),
  v.object({
    type: v.literal("diff"),
    path: v.string(),
    oldText: v.optional(v.nullable(v.string())),
    newText: v.string(),
  }),
  v.object({ type: v.literal("terminal"), terminalId: v.string() }),
]);

const Patch = v.looseObject({
  toolCallId: v.string(),
  title: v.optional(v.nullable(v.string())),
  status: v.optional(v.nullable(v.string())),
  content: v.optional(v.nullable(v.array(Content))),
  rawOutput: v.optional(v.unknown()),
});
type Patch = v.InferOutput<typeof Patch>;

const Update = v.object({
  sessionId: v.string(),
  update: v.looseObject({ sessionUpdate: v.string() }),
});
const Permission = v.object({ sessionId: v.string(), toolCall: Patch });

/** The card of `toolCallId` after each message that touched it, in wire order. */
export function zedCardHistory(
  sent: readonly WireMessage[],
  sessionId: string,
  toolCallId: string,
): ZedCard[] {
  const history: ZedCard[] = [];
  let card: ZedCard | undefined;
  for (const message of sent) {
    const step = cardStep(message, sessionId);
    if (step === undefined || step.patch.toolCallId !== toolCallId) continue;
    if (card === undefined && step.kind === "update") {
      card = { title: "Tool call not found", status: "failed", content: notFound };
    } else {
      card = apply(card ?? { title: "", status: "pending", content: [] }, step.patch);
      if (step.kind === "permission") card = { ...card, status: "waiting for confirmation" };
    }
    history.push(card);
  }
  return history;
}

const notFound: readonly CardEntry[] = [{ type: "text", text: "Tool call not found" }];

function cardStep(
  message: WireMessage,
  sessionId: string,
): { kind: "upsert" | "update" | "permission"; patch: Patch } | undefined {
  if (message.method === "session/request_permission") {
    const params = v.parse(Permission, message.params);
    return params.sessionId === sessionId
      ? { kind: "permission", patch: params.toolCall }
      : undefined;
  }
  if (message.method !== "session/update") return undefined;
  const params = v.parse(Update, message.params);
  const kind = params.update.sessionUpdate;
  if (params.sessionId !== sessionId || (kind !== "tool_call" && kind !== "tool_call_update")) {
    return undefined;
  }
  return { kind: kind === "tool_call" ? "upsert" : "update", patch: v.parse(Patch, params.update) };
}

function apply(card: ZedCard, patch: Patch): ZedCard {
  let content = card.content;
  // Zed reuses an unchanged entry in place (no flicker), which shows the same thing.
  if (patch.content != null) content = patch.content.map(entryOf);
  if (patch.rawOutput !== undefined && content.length === 0) {
    const raw = patch.rawOutput;
    content = [{ type: "text", text: typeof raw === "string" ? raw : JSON.stringify(raw) }];
  }
  return {
    title: patch.title ?? card.title,
    status: patch.status ?? card.status,
    content,
  };
}

function entryOf(content: v.InferOutput<typeof Content>): CardEntry {
  switch (content.type) {
    case "content": {
      const text = v.safeParse(v.object({ text: v.string() }), content.content);
      return { type: "text", text: text.success ? text.output.text : `[${content.content.type}]` };
    }
    case "diff":
      return {
        type: "diff",
        path: content.path,
        oldText: content.oldText ?? null,
        newText: content.newText,
      };
    case "terminal":
      return { type: "terminal", terminalId: content.terminalId };
    default: {
      const exhaustive: never = content;
      return exhaustive;
    }
  }
}
