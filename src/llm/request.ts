/**
 * Builds the Chat Completions request body from a `ChatRequest`. Every provider difference
 * is read from the `ModelInfo` (data), never from the model id: how reasoning is echoed in
 * assistant messages, how thinking is switched, whether usage is requested.
 */
import type { ChatMessage, ChatRequest, Effort, ModelInfo } from "./types.ts";

/** The JSON body sent to `/chat/completions`. */
export function buildRequestBody(request: ChatRequest): Record<string, unknown> {
  const { model, tools } = request;
  return {
    model: model.id,
    messages: request.messages.map((message) => toWireMessage(message, model)),
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

function toWireMessage(message: ChatMessage, model: ModelInfo): Record<string, unknown> {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
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
