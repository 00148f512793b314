/** Shared pieces of the model client tests: a client bound to the mock server, and event digests. */
import { createModelCatalog } from "../../src/llm/catalog.ts";
import { createModelClient, type ModelClientDeps } from "../../src/llm/client.ts";
import type {
  ChatMessage,
  ChatRequest,
  LlmEvent,
  ModelInfo,
  ToolDefinition,
} from "../../src/llm/types.ts";
import { silentLogger } from "../../src/log.ts";
import type { ModelServer } from "../support/model-server.ts";

export const API_KEY = "sk-test-0123456789abcdef";

export const flash: ModelInfo = createModelCatalog().get("deepseek-flash");

export const readFileTool: ToolDefinition = {
  name: "read_file",
  description: "Reads a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

/** A client for `server` with instant retries; `overrides` replace any dependency. */
export function clientFor(server: ModelServer, overrides: Partial<ModelClientDeps> = {}) {
  return createModelClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    logger: silentLogger,
    retry: { attempts: 4, baseDelayMs: 1 },
    ...overrides,
  });
}

export function chatRequest(overrides: Partial<ChatRequest> = {}): ChatRequest {
  const messages: ChatMessage[] = [{ role: "user", content: "hi" }];
  return { model: flash, messages, tools: [], ...overrides };
}

/** Runs one step to its end with a live signal. */
export async function collect(stream: AsyncIterable<LlmEvent>): Promise<LlmEvent[]> {
  const events: LlmEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** What a caller would keep of a step: joined texts, tool events, the end. */
export function digest(events: readonly LlmEvent[]) {
  let reasoning = "";
  let text = "";
  const tools: string[] = [];
  let end: unknown;
  let usage: unknown;
  for (const event of events) {
    if (event.type === "reasoning_delta") reasoning += event.text;
    else if (event.type === "text_delta") text += event.text;
    else if (event.type === "tool_call_start")
      tools.push(`start ${event.index} ${event.id} ${event.name}`);
    else if (event.type === "tool_call_delta") tools.push(`delta ${event.index} ${event.fragment}`);
    else if (event.type === "usage") usage = event.usage;
    else if (event.type === "finish") end = { finish: event.reason, toolCalls: event.toolCalls };
    else if (event.type === "error")
      end = { error: event.error.code, message: event.error.message };
  }
  return { reasoning, text, tools, usage, end };
}
