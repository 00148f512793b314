/**
 * Builds the Chat Completions request body from a `ChatRequest`. Every provider difference
 * is read from the `ModelInfo` (data), never from the model id: how reasoning is echoed in
 * assistant messages, how thinking is switched, whether usage is requested.
 */
import type { ChatContentPart, ChatMessage, ChatRequest, Effort, ModelInfo } from "./types.ts";

/** The JSON body sent to `/chat/completions`. */
export function buildRequestBody(request: ChatRequest): Record<string, unknown> {
  const { model, tools } = request;
  return {
    model: model.id,
    messages: request.messages.map((message) => toWireMessage(message, model, request.visionModel)),
    stream: true,
    ...(model.streamUsage ? { stream_options: { include_usage: true } } : {}),
    ...(tools.length === 0
      ? {}
      : {
          tools: tools.map((tool) => ({
            type: "function",
            function: {
              name: tool.name,
              description: tool.description,
              parameters: tool.parameters,
            },
          })),
          tool_choice: request.toolChoice ?? "auto",
        }),
    max_tokens: model.maxOutputTokens,
    ...thinkingFields(model, request.effort),
  };
}

/** A body a writer wrote: its messages, its bytes, where its head and its last message end. */
interface WrittenBody {
  /** The model fields the messages' JSON depends on (how reasoning is echoed, images seen). */
  readonly shape: string;
  readonly messages: readonly ChatMessage[];
  readonly body: Uint8Array;
  /** Where the messages start: the end of `{"model":…,"messages":[`. */
  readonly headEnd: number;
  readonly messagesEnd: number;
}

/**
 * Writes the request bodies of one conversation (a session's requests, one after another). It
 * keeps the last body it wrote for each first message (a session's requests all open with its
 * one system message; a summary request opens with its own), so a request that repeats that
 * body's messages and adds some costs only what it adds; two conversations never take each
 * other's place, because each has its own writer.
 */
export interface RequestWriter {
  /**
   * The UTF-8 bytes of `JSON.stringify(buildRequestBody(request))`, byte for byte. A request
   * that repeats the messages of the last body written with its first message (the same
   * objects, for a model that writes them alike) and adds some takes that body's bytes of them
   * as they are: only the added messages are written and encoded, and the body is put together
   * with one copy. Any other request is written whole.
   */
  body(request: ChatRequest): Uint8Array;
}

const encoder = new TextEncoder();

/** A writer with nothing written yet. */
export function createRequestWriter(): RequestWriter {
  // Held weakly: a summary request's body goes with its own system message. The messages'
  // bytes are kept only in the bodies, never as JSON strings of their own.
  const written = new WeakMap<ChatMessage, WrittenBody>();

  return {
    body(request) {
      const { model, messages } = request;
      const text = JSON.stringify(buildRequestBody({ ...request, messages: [] }));
      // The body opens with the model and the messages, in that order (see `buildRequestBody`).
      const head = `{"model":${JSON.stringify(model.id)},"messages":[`;
      const first = messages[0];
      if (!text.startsWith(head) || first === undefined) {
        return encoder.encode(JSON.stringify(buildRequestBody(request)));
      }
      const shape = `${model.reasoningEcho}\u0000${model.vision === true}\u0000${request.visionModel}`;
      const last = written.get(first);
      const shared = last !== undefined && extendsWritten(last, messages, shape) ? last : undefined;
      const from = shared?.messages.length ?? 0;
      const added = messages
        .slice(from)
        .map((message) => JSON.stringify(toWireMessage(message, model, request.visionModel)));
      // Every piece is whole JSON, so encoding them apart gives the bytes of encoding them joined.
      const opening = encoder.encode(head);
      const kept = shared?.body.subarray(shared.headEnd, shared.messagesEnd) ?? new Uint8Array();
      const addedText = added.length === 0 ? "" : `${from > 0 ? "," : ""}${added.join(",")}`;
      const middle = encoder.encode(addedText);
      const closing = encoder.encode(text.slice(head.length));
      const body = Buffer.concat([opening, kept, middle, closing]);
      // A copy of the messages: the caller's array may change after the request went.
      written.set(first, {
        shape,
        messages: messages.slice(),
        body,
        headEnd: opening.byteLength,
        messagesEnd: opening.byteLength + kept.byteLength + middle.byteLength,
      });
      return body;
    },
  };
}

function extendsWritten(
  last: WrittenBody,
  messages: readonly ChatMessage[],
  shape: string,
): boolean {
  if (last.shape !== shape || messages.length < last.messages.length) return false;
  // The body is never handed on to be changed, but a transfer would empty it.
  if (last.body.byteLength < last.messagesEnd) return false;
  for (let i = 0; i < last.messages.length; i++) if (messages[i] !== last.messages[i]) return false;
  return true;
}

/**
 * DeepSeek: the `thinking` switch is always sent (V4 thinks by default), with
 * `reasoning_effort` when enabled and an effort was chosen. `reasoning_effort` servers get
 * the effort unless it is `off`. No sampling fields: thinking mode ignores them.
 */
function thinkingFields(model: ModelInfo, effort: Effort | undefined): Record<string, unknown> {
  switch (model.thinking) {
    case "deepseek":
      if (effort === "off") return { thinking: { type: "disabled" } };
      return {
        thinking: { type: "enabled" },
        ...(effort === undefined ? {} : { reasoning_effort: effort }),
      };
    case "reasoning_effort":
      return effort === undefined || effort === "off" ? {} : { reasoning_effort: effort };
    case "none":
      return {};
    default: {
      const exhaustive: never = model.thinking;
      return exhaustive;
    }
  }
}

function toWireMessage(
  message: ChatMessage,
  model: ModelInfo,
  visionModel?: string,
): Record<string, unknown> {
  switch (message.role) {
    case "system":
      return { role: message.role, content: message.content };
    case "user":
      return {
        role: "user",
        content:
          typeof message.content === "string"
            ? message.content
            : message.content.map((part) => wirePart(part, model, visionModel)),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        // DeepSeek's rule: reasoning of tool-calling turns must come back, even when "".
        // Echoing it on every assistant message keeps one rule for all cases.
        ...(model.reasoningEcho === "none" ? {} : { [model.reasoningEcho]: message.reasoning }),
        ...(message.toolCalls.length === 0
          ? {}
          : {
              tool_calls: message.toolCalls.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: call.arguments },
              })),
            }),
      };
    default: {
      const exhaustive: never = message;
      return exhaustive;
    }
  }
}

/**
 * What a model without vision reads in place of an image (sent now, or earlier while another
 * model was chosen): the request must not carry a part it would reject, and the model can
 * tell the user which model would see it.
 */
export function imageOmitted(visionModel?: string): string {
  const hint = visionModel === undefined ? "" : `; switch to ${visionModel} to have it seen`;
  return `[an image was attached; this model cannot see images${hint}]`;
}

/** OpenAI's content parts: text as it is, an image as an `image_url` data URL. */
function wirePart(
  part: ChatContentPart,
  model: ModelInfo,
  visionModel: string | undefined,
): Record<string, unknown> {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      if (model.vision !== true) return { type: "text", text: imageOmitted(visionModel) };
      return { type: "image_url", image_url: { url: `data:${part.mimeType};base64,${part.data}` } };
    default: {
      const exhaustive: never = part;
      return exhaustive;
    }
  }
}
